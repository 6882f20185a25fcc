// Test-only route (see next.config.ts): a button whose click keeps the main thread busy for 200 ms,
// an interaction slow enough to be the page's INP, and whose id and title carry secrets of
// __tests__/support/secrets.ts: the INP span names the element it measured.
import { useState } from 'react';

export default function SlowInteractionFixture() {
  const [done, setDone] = useState(false);
  const slowClick = () => {
    const until = performance.now() + 200;
    while (performance.now() < until) {
      // Busy, as a heavy handler is.
    }
    setDone(true);
  };
  return (
    <main>
      <h1>Slow interaction fixture</h1>
      <button
        type="button"
        id="ghp_0123456789abcdefghijABCDEFGHIJ012345"
        title="jane.secret@example.com"
        onClick={slowClick}
      >
        Do the slow thing
      </button>
      {done ? <p>Done.</p> : null}
    </main>
  );
}
