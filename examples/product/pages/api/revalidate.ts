import type { NextApiRequest, NextApiResponse } from 'next';

/** On-demand revalidation of one blog post: POST /api/revalidate?slug=hello. */
export default async function revalidate(req: NextApiRequest, res: NextApiResponse) {
  const slug = typeof req.query.slug === 'string' ? req.query.slug : '';
  if (req.method !== 'POST' || !/^[a-z0-9-]{1,64}$/.test(slug)) {
    res.status(400).json({ error: 'POST with ?slug=<a blog post>' });
    return;
  }
  await res.revalidate(`/blog/${slug}`);
  res.status(200).json({ revalidated: `/blog/${slug}` });
}
