import type { NextApiRequest, NextApiResponse } from 'next';
import { probeResponse } from '../../lib/health/probe-http';

export const config = { api: { bodyParser: false } };

export default function health(req: NextApiRequest, res: NextApiResponse) {
  const { status, headers, body } = probeResponse(req.method, { status: 'pass' });
  res.writeHead(status, headers);
  res.end(body);
}
