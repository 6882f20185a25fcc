// The Next API handler behind each of the three route files in pages/api/health/.
import type { NextApiRequest, NextApiResponse } from 'next';
import { healthReport, type Probe } from './report';
import { probeResponse } from './response';

export function healthRoute(probe: Probe) {
  return async function health(req: NextApiRequest, res: NextApiResponse): Promise<void> {
    const { status, headers, body } = await probeResponse(req.method, probe, healthReport);
    res.writeHead(status, headers);
    res.end(body);
  };
}
