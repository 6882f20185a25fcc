// next.config names no page cache handler and leaves Next's memory layer at its default: the shell's
// server hands Next its handler at start (lib/page-cache/handler.ts), because Next import()s a named
// handler's file twice on every request; and so a product's own `cacheHandler`, the only one the
// built config can name, is what tells the server to keep its own closed (lib/server/build-output.ts).
import { usesShellPageCache } from '@lib/server/build-output';
import { nextConfigWith } from '../../support/next-config';

describe('next.config and the page cache', () => {
  it.each([
    ['a plain build', {}],
    ['the standalone folder', { NEXT_OUTPUT: 'standalone' }],
  ])('names no handler and no memory size for %s, so the server hands its own over', (_, env) => {
    const config = nextConfigWith(env);
    expect(config).not.toHaveProperty('cacheHandler');
    expect(config).not.toHaveProperty('cacheMaxMemorySize');
    expect(usesShellPageCache(config)).toBe(true);
  });
});
