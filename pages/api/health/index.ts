// GET /api/health: overall health, for uptime monitors. Logic in lib/health.
import { healthRoute } from '../../../lib/health/route';

// Probes send no body worth reading; never buffer one.
export const config = { api: { bodyParser: false } };

export default healthRoute('overall');
