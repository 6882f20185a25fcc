// The cache handler's own part (lib/page-cache/handler.ts): tags revalidated anywhere applied as
// Next applies them, the tags an entry was made with, and a read refused once one of them is
// revalidated. The process's page cache behind it is a made-up one (./page-cache.test.ts has the real).
import FileSystemCache from 'next/dist/server/lib/incremental-cache/file-system-cache';
import { tagsManifest } from 'next/dist/server/lib/incremental-cache/tags-manifest.external';
import { nodeFs } from 'next/dist/server/lib/node-fs-methods';
import type { CacheEntry } from '@lib/page-cache/codec';
import PageCacheHandler, { entryTags, expireTags, pageCacheSlot } from '@lib/page-cache/handler';
import type { CacheContext, PageCache } from '@lib/page-cache/page-cache';

afterEach(() => {
  tagsManifest.clear();
  pageCacheSlot.clear();
});

const NOW = 1_700_000_000_000;

describe('tags revalidated anywhere, applied here', () => {
  it('expire at once when no durations are given, keeping what the tag had', () => {
    tagsManifest.set('shoes', { stale: NOW - 5000 });
    expireTags(['shoes'], undefined, NOW);
    expect(tagsManifest.get('shoes')).toEqual({ stale: NOW - 5000, expired: NOW });
  });

  it('go stale at once, and expire after their expire in seconds', () => {
    tagsManifest.set('shoes', { expired: NOW - 5000 });
    expireTags(['shoes'], { expire: 60 }, NOW);
    expect(tagsManifest.get('shoes')).toEqual({ stale: NOW, expired: NOW + 60_000 });
  });

  it('go stale at once, keeping their expiry, when durations name no expire', () => {
    tagsManifest.set('shoes', { expired: NOW - 5000 });
    expireTags(['shoes'], {}, NOW);
    expect(tagsManifest.get('shoes')).toEqual({ stale: NOW, expired: NOW - 5000 });
  });

  it('apply to every tag named', () => {
    expireTags(['shoes', 'hats', 'socks'], undefined, NOW);
    expect(Object.fromEntries(tagsManifest)).toEqual({
      shoes: { expired: NOW },
      hats: { expired: NOW },
      socks: { expired: NOW },
    });
  });

  it("leave Next's tags manifest as Next's own file-system cache leaves it", async () => {
    jest.useFakeTimers({ now: NOW });
    try {
      const next = new FileSystemCache({
        fs: nodeFs,
        serverDistDir: '/nowhere/server',
        flushToDisk: false,
        maxMemoryCacheSize: 0,
        revalidatedTags: [],
        _requestHeaders: {},
      });
      for (const durations of [undefined, { expire: 60 }, { expire: 0 }, {}]) {
        const before = { stale: NOW - 9000, expired: NOW - 8000 };
        tagsManifest.clear();
        tagsManifest.set('a', { ...before });
        await next.revalidateTag(['a', 'b'], durations);
        const nexts = Object.fromEntries(tagsManifest);
        tagsManifest.clear();
        tagsManifest.set('a', { ...before });
        expireTags(['a', 'b'], durations);
        expect([durations, Object.fromEntries(tagsManifest)]).toEqual([durations, nexts]);
      }
    } finally {
      jest.useRealTimers();
    }
  });
});

describe('the tags an entry was made with', () => {
  const pageWith = (headers: Record<string, unknown> | undefined): CacheEntry => ({
    lastModified: NOW,
    value: { kind: 'PAGES', html: '', headers },
  });

  it("are a page's x-next-cache-tags header, split at its commas", () => {
    expect(entryTags(pageWith({ 'x-next-cache-tags': 'product-7,shoes,_N_T_/shoe' }), {})).toEqual([
      'product-7',
      'shoes',
      '_N_T_/shoe',
    ]);
  });

  it('are none for a page without the header, with an empty one, or without a value', () => {
    expect(entryTags(pageWith({ 'x-next-cache-tags': '' }), {})).toEqual([]);
    expect(entryTags(pageWith({ 'content-type': 'text/html' }), {})).toEqual([]);
    expect(entryTags(pageWith(undefined), {})).toEqual([]);
    expect(entryTags({ lastModified: NOW, value: null }, {})).toEqual([]);
  });

  it("are a fetch's tags and soft tags from the request, text only", () => {
    const fetched: CacheEntry = {
      lastModified: NOW,
      value: { kind: 'FETCH', data: { headers: { 'x-next-cache-tags': 'ignored' } } },
    };
    expect(entryTags(fetched, { tags: ['product-7', 7], softTags: ['_N_T_/shoe'] })).toEqual([
      'product-7',
      '_N_T_/shoe',
    ]);
    expect(entryTags(fetched, { tags: 'product-7' })).toEqual([]);
  });
});

describe("the cache handler's read", () => {
  /** The process's page cache, as the first handler would have made it, holding `entry`. */
  function processCacheWith(entry: CacheEntry | null) {
    const cache = {
      get: jest.fn(async () => entry),
      set: jest.fn(async () => {}),
      revalidateTag: jest.fn(async () => {}),
    } satisfies PageCache;
    pageCacheSlot.write(cache);
    return { cache, handler: new PageCacheHandler({ revalidatedTags: [], _requestHeaders: {} }) };
  }

  const taggedPage = (tags: string, lastModified: number): CacheEntry => ({
    lastModified,
    value: { kind: 'PAGES', html: '<p>shoe</p>', headers: { 'x-next-cache-tags': tags } },
  });

  const context: CacheContext = { kind: 'PAGES', isFallback: false };

  it("asks the process's page cache with Next's key and context, and gives back what it has", async () => {
    const entry = taggedPage('shoes', Date.now() - 10_000);
    const { cache, handler } = processCacheWith(entry);
    expect(await handler.get('/shoe', context)).toBe(entry);
    expect(cache.get).toHaveBeenCalledWith('/shoe', context);
  });

  it('is a miss when the page cache has no entry', async () => {
    const { handler } = processCacheWith(null);
    expect(await handler.get('/shoe', context)).toBeNull();
  });

  it('is a miss for an entry one of whose tags was revalidated after it was made', async () => {
    const { handler } = processCacheWith(taggedPage('shoes', Date.now() - 10_000));
    expireTags(['shoes']);
    expect(await handler.get('/shoe', context)).toBeNull();
  });

  it('serves an entry made after its tag was revalidated', async () => {
    expireTags(['shoes'], undefined, Date.now() - 20_000);
    const entry = taggedPage('shoes', Date.now() - 10_000);
    const { handler } = processCacheWith(entry);
    expect(await handler.get('/shoe', context)).toBe(entry);
  });

  it('serves an entry whose tag is stale but expires only later', async () => {
    const entry = taggedPage('shoes', Date.now() - 10_000);
    const { handler } = processCacheWith(entry);
    expireTags(['shoes'], { expire: 60 });
    expect(await handler.get('/shoe', context)).toBe(entry);
  });

  it("is a miss for a fetch one of whose request's tags was revalidated after it was made", async () => {
    const fetched: CacheEntry = { lastModified: Date.now() - 10_000, value: { kind: 'FETCH', data: {} } };
    const { handler } = processCacheWith(fetched);
    expireTags(['product-7']);
    expect(await handler.get('fetch-key', { kind: 'FETCH', tags: ['other'] })).toBe(fetched);
    expect(
      await handler.get('fetch-key', { kind: 'FETCH', tags: ['other'], softTags: ['product-7'] }),
    ).toBeNull();
  });
});
