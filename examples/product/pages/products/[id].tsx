import type { GetServerSideProps } from 'next';

interface Product {
  id: string;
  name: string;
}

/** The product's own upstream; the example's tests start one on loopback. */
const upstream = () => process.env.PRODUCT_API_URL ?? 'http://127.0.0.1:4010';

export const getServerSideProps: GetServerSideProps<{ product: Product }> = async ({ params }) => {
  const id = String(params?.id);
  let answer: Response;
  try {
    answer = await fetch(`${upstream()}/products/${encodeURIComponent(id)}`);
  } catch (error) {
    // A failed fetch throws "fetch failed" (its cause ECONNREFUSED) with no stack frame at all, so
    // it is wrapped to say which call failed, and where: the shell's error screen, a 500, and one
    // log line with the chain of causes.
    throw new Error(`The product API could not be reached for product ${id}`, { cause: error });
  }
  if (answer.status === 404) return { notFound: true };
  if (!answer.ok) throw new Error(`The product API answered ${answer.status} for product ${id}`);
  return { props: { product: (await answer.json()) as Product } };
};

export default function ProductPage({ product }: { product: Product }) {
  return <h1>{product.name}</h1>;
}
