// /api/health (overall), /api/health/live and /api/health/ready. Logic lives in lib/health.
import type { NextApiRequest, NextApiResponse } from 'next';
import { healthReport, probeForPath } from '../../../lib/health/endpoints';
import { probeResponse } from '../../../lib/health/http';

// Probes send no body worth reading; never buffer one.
export const config = { api: { bodyParser: false } };

export default async function health(req: NextApiRequest, res: NextApiResponse) {
  const { status, headers, body } = await probeResponse(req.method, probeForPath(req.url), healthReport);
  res.writeHead(status, headers);
  res.end(body);
}
