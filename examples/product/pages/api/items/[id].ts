import type { NextApiRequest, NextApiResponse } from 'next';

export default function item(req: NextApiRequest, res: NextApiResponse) {
  res.status(200).json({ id: req.query.id });
}
