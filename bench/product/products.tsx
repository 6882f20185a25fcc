// The server-rendered page `npm run bench:product-pages` measures (bench/product-pages.js copies it to
// pages/products.tsx in a copy of the shell; never a route of the shell itself): a list rendered on
// every request from getServerSideProps, as a product's catalogue page is, its data made in the
// process so that the figure is the server's and not an upstream's.
import type { GetServerSideProps } from 'next';

interface Product {
  id: number;
  name: string;
  price: string;
}

export const getServerSideProps: GetServerSideProps<{ products: Product[]; renderedAt: string }> = async ({
  query,
}) => {
  const page = Math.max(1, Number(query.page) || 1);
  const products = Array.from({ length: 30 }, (_, index) => {
    const id = (page - 1) * 30 + index + 1;
    return { id, name: `Product ${id}`, price: `€${((id * 37) % 100) + 0.99}` };
  });
  return { props: { products, renderedAt: new Date().toISOString() } };
};

export default function Products({ products, renderedAt }: { products: Product[]; renderedAt: string }) {
  return (
    <main>
      <h1>Products</h1>
      <ul>
        {products.map((product) => (
          <li key={product.id}>
            <a href={`/products/${product.id}`}>{product.name}</a> <span>{product.price}</span>
          </li>
        ))}
      </ul>
      <p>
        Rendered at <time>{renderedAt}</time>
      </p>
    </main>
  );
}
