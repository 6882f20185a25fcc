import type { GetStaticPaths, GetStaticProps } from 'next';

export const getStaticPaths: GetStaticPaths = async () => ({
  paths: [{ params: { slug: 'hello' } }],
  fallback: 'blocking',
});

export const getStaticProps: GetStaticProps<{ slug: string; renderedAt: string }> = async ({ params }) => {
  const slug = String(params?.slug);
  if (slug === 'gone') return { notFound: true, revalidate: 10 };
  return { props: { slug, renderedAt: new Date().toISOString() }, revalidate: 10 };
};

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
