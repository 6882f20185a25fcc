// GET /api/health: overall health, for uptime monitors. Logic in lib/health.
// In production the server answers this path before Next, with the same code (lib/health/stage.ts);
// this file answers under `npm run dev`, and wherever Next is started on its own.
import { healthRoute } from '../../../lib/health/route';

// Probes send no body worth reading; never buffer one.
export const config = { api: { bodyParser: false } };

export default healthRoute('overall');
