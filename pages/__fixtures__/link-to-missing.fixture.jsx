// Test-only route (see next.config.ts): a product page linking with next/link to a route that does
// not exist, to check client navigation still ends on "Page not found" with status 404.
import Link from 'next/link';

export default function LinkToMissingFixture() {
  return (
    <main>
      <h1>Link fixture</h1>
      <Link href="/no/such/route?from=link">Go to a page that does not exist</Link>
    </main>
  );
}
