// A page cache hit under many visitors at once (lib/page-cache/page-cache.ts, its memory hit): read
// through Next's own response cache, as every page request reads it, requests that arrive in one
// poll phase (each in a callback of its own, here each in its own setImmediate callback) share one
// read of the key, as they share one of Next's own memory cache's reads: one handleGet, one
// IncrementalCache get and one memory read for the burst, not one each (`npm run bench:page-cache`).
import ResponseCache from 'next/dist/server/response-cache';
import type { RouteKind } from 'next/dist/server/route-kind';
import type { CacheEntry } from '@lib/page-cache/codec';
import { createLocalLayer } from '@lib/page-cache/local-layer';
import { createPageCache, type PageCache } from '@lib/page-cache/page-cache';

const KEY = '/post/hello';
// RouteKind.PAGES (a const enum, which isolated modules cannot read).
const PAGES = 'PAGES' as RouteKind;
const entry: CacheEntry = {
  lastModified: Date.now(),
  value: { kind: 'PAGES', html: '<p>hello</p>', pageData: { pageProps: {} }, headers: {}, status: 200 },
};

function memoryOnly() {
  const local = createLocalLayer<CacheEntry>(1024 * 1024);
  local.set(KEY, entry, 1000);
  const reads = jest.spyOn(local, 'get');
  const cache: PageCache = createPageCache({
    namespace: 'build-1',
    local,
    store: null,
    disk: null,
    build: { get: async () => null },
    ttlSeconds: 60,
    instance: 'me',
    now: Date.now,
    diskFailed: () => {},
    expireTags: () => {},
  });
  return { cache, reads };
}

/** Next's response cache for one page, reading through `cache` as the IncrementalCache does. */
function nextsResponseCache(cache: PageCache) {
  const responseCache = new ResponseCache({
    minimalMode: false,
    route: { kind: PAGES, sourceRoute: '/post/[slug]' },
  });
  const incrementalCache = {
    get: jest.fn(async (key: string, context: Record<string, unknown>) => {
      const found = await cache.get(key, context);
      return (
        found && { isStale: false, value: found.value, cacheControl: { revalidate: 3600, expire: undefined } }
      );
    }),
    set: jest.fn(async () => {}),
  };
  const request = () =>
    responseCache.get(KEY, async () => null, {
      routeKind: PAGES,
      isFallback: false,
      isRoutePPREnabled: false,
      isOnDemandRevalidate: false,
      incrementalCache: incrementalCache as never,
    });
  return { request, incrementalCache };
}

/** `count` requests, each begun in a callback of its own in the same phase of the event loop. */
function burst(count: number, request: () => Promise<unknown>): Promise<unknown[]> {
  return Promise.all(
    Array.from({ length: count }, () => new Promise((resolve) => setImmediate(() => resolve(request())))),
  );
}

describe('a memory hit under a burst of requests for one page', () => {
  it('is one read of the key for the whole burst, every request answered with the page', async () => {
    const { cache, reads } = memoryOnly();
    const { request, incrementalCache } = nextsResponseCache(cache);
    const answers = await burst(10, request);
    expect(answers).toHaveLength(10);
    for (const answer of answers) expect(answer).toMatchObject({ value: { kind: 'PAGES', status: 200 } });
    expect(incrementalCache.get).toHaveBeenCalledTimes(1);
    expect(reads).toHaveBeenCalledTimes(1);
  });

  it('is read again by the next burst, so a write between bursts is seen', async () => {
    const { cache, reads } = memoryOnly();
    const { request } = nextsResponseCache(cache);
    await burst(3, request);
    await burst(3, request);
    expect(reads).toHaveBeenCalledTimes(2);
  });
});
