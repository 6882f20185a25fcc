// The recovery on the server: Next's server bundle has a webpack runtime too, but no page to reload.
import { recoverLostAssets } from '@lib/fleet/recovery';

const global = globalThis as unknown as { __webpack_require__?: { e: () => Promise<unknown> } };

afterEach(() => {
  delete global.__webpack_require__;
});

it('leaves the server bundle’s chunk loader as it is', () => {
  const load = () => Promise.resolve();
  global.__webpack_require__ = { e: load };
  recoverLostAssets();
  expect(global.__webpack_require__.e).toBe(load);
});
