import type { NextApiRequest, NextApiResponse } from 'next';

export default function echo(req: NextApiRequest, res: NextApiResponse) {
  res.status(200).json({ method: req.method });
}
