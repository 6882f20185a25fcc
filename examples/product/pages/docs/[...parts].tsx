import type { GetServerSideProps } from 'next';

export const getServerSideProps: GetServerSideProps<{ parts: string }> = async ({ params }) => ({
  props: { parts: [params?.parts].flat().join('/') },
});

export default function Doc({ parts }: { parts: string }) {
  return <h1>{parts}</h1>;
}
