// Test-only route (see next.config.ts): a click that runs TypeScript which throws, for the
// source-map tests.
import { throwInBrowser } from '../../__tests__/e2e/__fixtures__/throwing';

export default function TypeScriptErrorFixture() {
  return (
    <main>
      <h1>TypeScript error fixture</h1>
      <button type="button" onClick={() => throwInBrowser()}>
        Throw from TypeScript
      </button>
    </main>
  );
}
