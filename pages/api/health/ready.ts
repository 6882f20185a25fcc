// GET /api/health/ready: readiness, for orchestrators and load balancers. Logic in lib/health.
import { healthRoute } from '../../../lib/health/route';

// Probes send no body worth reading; never buffer one.
export const config = { api: { bodyParser: false } };

export default healthRoute('ready');
