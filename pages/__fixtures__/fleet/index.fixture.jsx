// Test-only route (see next.config.ts): a product page as a rolling update meets it, with a lazy
// part (next/dynamic) and a client-side link to a page rendered per request. Each fixture build
// inlines its own build id (APP_FIXTURE_BUILD_ID), so two builds differ in every chunk's hash, as
// two releases of a product do.
import dynamic from 'next/dynamic';
import Link from 'next/link';
import { useState } from 'react';

const LazyPart = dynamic(() => import('../../../__tests__/e2e/__fixtures__/fleet-lazy-part'), {
  ssr: false,
  loading: () => <p>Loading the lazy part…</p>,
});

export default function FleetFixture() {
  const [clicks, setClicks] = useState(0);
  const [showLazy, setShowLazy] = useState(false);
  return (
    <main data-build={process.env.APP_FIXTURE_BUILD_ID}>
      <h1>Fleet fixture</h1>
      <button type="button" onClick={() => setClicks(clicks + 1)}>
        Clicked {clicks} times
      </button>
      <button type="button" onClick={() => setShowLazy(true)}>
        Show the lazy part
      </button>
      {showLazy ? <LazyPart /> : null}
      <Link href="/__fixtures__/fleet/server">Open the server-rendered page</Link>
    </main>
  );
}
