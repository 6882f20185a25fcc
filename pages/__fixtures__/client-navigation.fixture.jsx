// Test-only route (see next.config.ts): links to a page whose data loading fails in the browser,
// so Next renders _error on the client with no status: a client-side exception.
import Link from 'next/link';

export default function ClientNavigationFixture() {
  return (
    <main>
      <h1>Client navigation fixture</h1>
      <Link href="/__fixtures__/fails-in-browser">Open the page that fails in the browser</Link>
    </main>
  );
}
