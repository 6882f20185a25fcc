import type { GetServerSideProps } from 'next';

export const getServerSideProps: GetServerSideProps = async () => ({ props: {} });

export default function Broken(): never {
  throw new Error('The broken page failed to render');
}
