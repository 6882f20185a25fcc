import type { NextApiRequest, NextApiResponse } from 'next';

// The route reads its own body, as an upload route does.
export const config = { api: { bodyParser: false } };

export default async function upload(req: NextApiRequest, res: NextApiResponse) {
  let bytes = 0;
  for await (const chunk of req) bytes += (chunk as Buffer).length;
  res.status(200).json({ bytes });
}
