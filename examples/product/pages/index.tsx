import Image from 'next/image';
import Link from 'next/link';

export default function Home() {
  return (
    <main>
      {/* A React style attribute: the shell's CSP must let it apply in production as in development. */}
      <h1 style={{ color: 'rgb(0, 90, 60)' }}>Home</h1>
      <Image src="/example/shelf.png" alt="A shelf" width={2} height={2} />
      <ul>
        <li>
          <Link href="/products/7">A product</Link>
        </li>
        <li>
          <Link href="/blog/hello">The blog</Link>
        </li>
        <li>
          <Link href="/about">About</Link>
        </li>
      </ul>
    </main>
  );
}
