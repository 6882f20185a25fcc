// The product page `npm run bench:page-cache` measures (bench/page-cache.js copies it to
// pages/post/[slug].tsx in a copy of the shell; never a route of the shell itself): a statically
// generated page as a product team writes one, like examples/product's blog page.
import type { GetStaticPaths, GetStaticProps } from 'next';

export const getStaticPaths: GetStaticPaths = async () => ({
  paths: [{ params: { slug: 'hello' } }],
  fallback: 'blocking',
});

export const getStaticProps: GetStaticProps<{ slug: string; renderedAt: string }> = async ({ params }) => ({
  props: { slug: String(params?.slug), renderedAt: new Date().toISOString() },
  // An hour: no measured request finds the page stale, so every one is a hit.
  revalidate: 3600,
});

export default function Post({ slug, renderedAt }: { slug: string; renderedAt: string }) {
  return (
    <article>
      <h1>{slug}</h1>
      <p>
        Rendered at <time>{renderedAt}</time>
      </p>
    </article>
  );
}
