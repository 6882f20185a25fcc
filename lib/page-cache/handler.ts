// The shell's page cache handler, which the production server hands Next at start (openPageCache): Next
// makes one of these for every request, so each is a thin door to the one page cache of the process
// (./page-cache.ts), made by the first.
//
// Handed over, not named in next.config.ts: Next `import()`s a `cacheHandler` file named there twice
// on every request (getIncrementalCache in next/dist/server/next-server.js and in
// next/dist/server/route-modules/route-module.js), about 80 µs a request with one visitor at a time,
// more than the hit itself (docs/page-cache.md, `npm run bench:page-cache`). Where next.config names
// none, Next's IncrementalCache takes the handler a platform put on the global below, by the same
// interface and with the same arguments (next/dist/server/lib/incremental-cache/index.js).
import { randomUUID } from 'node:crypto';
import { tagsManifest, areTagsExpired } from 'next/dist/server/lib/incremental-cache/tags-manifest.external';
import type { CacheHandlerContext, CacheHandlerValue } from 'next/dist/server/lib/incremental-cache';
import { nodeFs } from 'next/dist/server/lib/node-fs-methods';
import { settings } from '../config/settings';
import { errorFields, log } from '../log/logger';
import { processSlot } from '../process/slots';
import type { CacheEntry } from './codec';
import { createLocalLayer } from './local-layer';
import { buildNamespace } from './namespace';
import { createPageCache, type CacheContext, type PageCache } from './page-cache';
import { buildPages, cacheFolderOf, cacheFolderPages } from './page-files';
import { pageCacheStoreSlot } from '../health/page-cache-store';
import { connectStore, storeAddress } from './store';

/** The process's page cache, made by the first handler Next makes. */
export const pageCacheSlot = processSlot<PageCache>('pageCache');

/** Tags revalidated anywhere, applied to Next's own manifest as its file-system cache applies them. */
export function expireTags(tags: string[], durations?: { expire?: number }, now = Date.now()): void {
  for (const tag of tags) {
    const existing = tagsManifest.get(tag) ?? {};
    tagsManifest.set(
      tag,
      durations
        ? {
            ...existing,
            stale: now,
            ...(durations.expire !== undefined ? { expired: now + durations.expire * 1000 } : {}),
          }
        : { ...existing, expired: now },
    );
  }
}

/** The tags an entry was made with (a fetch's are the request's), for the revalidateTag() check. */
export function entryTags(entry: CacheEntry, context: CacheContext): string[] {
  const value = entry.value as { kind?: string; headers?: Record<string, unknown> } | null;
  if (value?.kind === 'FETCH') {
    const tags = [context.tags, context.softTags].flatMap((list) => (Array.isArray(list) ? list : []));
    return tags.filter((tag): tag is string => typeof tag === 'string');
  }
  const header = value?.headers?.['x-next-cache-tags'];
  return typeof header === 'string' && header !== '' ? header.split(',') : [];
}

function createProcessPageCache(context: CacheHandlerContext): PageCache {
  const serverDistDir = context.serverDistDir ?? '';
  const fs = context.fs ?? nodeFs;
  const { pageCacheUrl, pageCacheTimeoutMs, pageCacheTtlSeconds, pageCacheMemoryMb } = settings();
  const namespace = buildNamespace(serverDistDir);
  const store = pageCacheUrl ? connectStore({ url: pageCacheUrl, timeoutMs: pageCacheTimeoutMs }) : null;
  if (store) pageCacheStoreSlot.write(store);
  let disk = null;
  if (!store) {
    const folder = cacheFolderPages(fs, cacheFolderOf(serverDistDir, namespace));
    if (folder.files) disk = folder.files;
    else
      log('warn', 'page_cache.folder_unwritable', {
        error: errorFields(folder.error),
        message:
          "Regenerated pages are kept in this instance's memory only: the cache folder cannot be written.",
      });
  }
  log('info', 'page_cache.ready', {
    build: namespace,
    store: store && pageCacheUrl ? storeAddress(pageCacheUrl) : null,
    folder: disk !== null,
    memoryMb: pageCacheMemoryMb,
  });
  return createPageCache({
    namespace,
    local: createLocalLayer<CacheEntry>(pageCacheMemoryMb * 1024 * 1024),
    store,
    disk,
    build: buildPages(fs, serverDistDir),
    ttlSeconds: pageCacheTtlSeconds,
    instance: randomUUID(),
    now: Date.now,
    diskFailed: (error) =>
      log('warn', 'page_cache.folder_unwritable', {
        error: errorFields(error),
        message:
          "Regenerated pages are kept in this instance's memory only from now: the cache folder failed a write.",
      }),
    expireTags,
  });
}

/** Where Next finds handlers a platform hands it (`FetchCache`: the page cache's, when next.config names none). */
const NEXT_HANDLERS = Symbol.for('@next/cache-handlers');
type NextHandlers = { FetchCache?: unknown } & Record<string, unknown>;

/**
 * Opens the process's page cache at start (lib/server/start.ts), so the store is connected, and its
 * health check there, before the first page asks, and hands Next the handler. A handler a platform
 * handed Next already is left in place, and nothing opened. Returns how to close the store at exit.
 */
export function openPageCache(serverDistDir: string): () => Promise<void> {
  const global = globalThis as { [NEXT_HANDLERS]?: NextHandlers };
  const handed = global[NEXT_HANDLERS];
  if (handed?.FetchCache) return async () => {};
  pageCacheSlot.getOrCreate(() =>
    createProcessPageCache({ serverDistDir, fs: nodeFs, revalidatedTags: [], _requestHeaders: {} }),
  );
  global[NEXT_HANDLERS] = { ...handed, FetchCache: PageCacheHandler };
  return async () => {
    await pageCacheStoreSlot.read()?.close();
  };
}

export default class PageCacheHandler {
  private readonly cache: PageCache;

  constructor(context: CacheHandlerContext) {
    this.cache = pageCacheSlot.getOrCreate(() => createProcessPageCache(context));
  }

  async get(key: string, context: CacheContext): Promise<CacheHandlerValue | null> {
    const entry = await this.cache.get(key, context);
    if (!entry) return null;
    // A tag revalidated after the entry was made: a miss, as in Next's own file-system cache.
    // (No tags: Next's check finds none expired.)
    if (areTagsExpired(entryTags(entry, context), entry.lastModified)) return null;
    return entry as CacheHandlerValue;
  }

  set(key: string, value: unknown, context: CacheContext): Promise<void> {
    return this.cache.set(key, value, context);
  }

  revalidateTag(tags: string | string[], durations?: { expire?: number }): Promise<void> {
    return this.cache.revalidateTag(tags, durations);
  }

  resetRequestCache(): void {}
}
