// Test-only route (see next.config.ts): a render error the _app boundary must catch.
import { useState } from 'react';

/** @param {{ broken: boolean }} props */
function Breaks({ broken }) {
  if (broken) throw new Error('Fixture render error');
  return <p>The fixture page is working.</p>;
}

export default function RenderErrorFixture() {
  const [broken, setBroken] = useState(false);
  return (
    <main>
      <h1>Render error fixture</h1>
      <Breaks broken={broken} />
      <button type="button" onClick={() => setBroken(true)}>
        Break the page
      </button>
    </main>
  );
}
