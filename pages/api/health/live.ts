// GET /api/health/live: liveness, for orchestrators' liveness probes. Logic in lib/health.
import { healthRoute } from '../../../lib/health/route';

// Probes send no body worth reading; never buffer one.
export const config = { api: { bodyParser: false } };

export default healthRoute('live');
