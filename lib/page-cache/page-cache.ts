// Next's page cache for this shell (docs/page-cache.md): what a statically generated page, a
// regenerated one and an on-demand revalidation leave behind, in three places read in order.
//   1. This process's memory (./local-layer.ts): a hit costs no network.
//   2. The shared store (PAGE_CACHE_URL), keyed by build: what one instance rendered, every other
//      one serves; a write there tells every instance to drop its copy. Without a store, the
//      writable cache folder (`<distDir>/cache/`, an emptyDir under the shipped Deployment) instead.
//   3. The build's own prerendered pages, read-only, as Next reads them.
// Nothing is ever written into the build. A store that fails or is slow is a miss, never an error:
// the page is served from 1 or 3, or rendered.
import { decodeEntry, encodeEntry, type CacheEntry } from './codec';
import type { LocalLayer } from './local-layer';
import type { PageStore } from './store';
import { channelName, storeKey } from './namespace';
import { recordPageCache, type PageCacheSource } from '../metrics/record';

/** What Next hands get() and set() beside the key (`kind`, `isFallback`, `cacheControl`…). */
export type CacheContext = Record<string, unknown>;

/** A folder of pages Next's own file-system cache reads (and, for the writable one, writes). */
export interface PageFiles {
  get: (key: string, context: CacheContext) => Promise<CacheEntry | null>;
  set?: (key: string, value: unknown, context: CacheContext) => Promise<void>;
}

export interface PageCacheParts {
  /** The build the entries belong to (./namespace.ts). */
  namespace: string;
  local: LocalLayer<CacheEntry>;
  store: PageStore | null;
  /** The writable cache folder, used when there is no store; null where it cannot be written. */
  disk: PageFiles | null;
  /** The build's prerendered pages. */
  build: PageFiles;
  /** How long the store keeps an entry no one writes again. */
  ttlSeconds: number;
  /** This instance's name on the invalidation channel, so it ignores its own messages. */
  instance: string;
  now: () => number;
  /** Called once when the writable folder fails, with the error; the folder is not used again. */
  diskFailed: (error: unknown) => void;
  /** Tags a revalidateTag() anywhere named, applied here (Next's own tags manifest). */
  expireTags: (tags: string[], durations?: { expire?: number }) => void;
}

export interface PageCache {
  get: (key: string, context: CacheContext) => Promise<CacheEntry | null>;
  set: (key: string, value: unknown, context: CacheContext) => Promise<void>;
  revalidateTag: (tags: string | string[], durations?: { expire?: number }) => Promise<void>;
}

/** A message on the invalidation channel: a key written, or tags revalidated, by `from`. */
type Invalidation = { from: string; key?: string; tags?: string[]; durations?: { expire?: number } };

export function parseInvalidation(text: string): Invalidation | null {
  try {
    const message = JSON.parse(text) as Partial<Invalidation> | null;
    if (!message || typeof message.from !== 'string') return null;
    if (typeof message.key === 'string') return { from: message.from, key: message.key };
    if (Array.isArray(message.tags) && message.tags.every((tag) => typeof tag === 'string'))
      return {
        from: message.from,
        tags: message.tags,
        ...(typeof message.durations?.expire === 'number'
          ? { durations: { expire: message.durations.expire } }
          : {}),
      };
    return null;
  } catch {
    return null;
  }
}

export function createPageCache(parts: PageCacheParts): PageCache {
  const { local, store, build, namespace, instance } = parts;
  let disk = parts.disk;
  const channel = channelName(namespace);

  if (store) {
    store.listen(channel, (text) => {
      const message = parseInvalidation(text);
      if (!message || message.from === instance) return;
      if (message.key !== undefined) {
        local.delete(message.key);
        recordPageCache('invalidated', 1, 'key');
      } else if (message.tags) {
        parts.expireTags(message.tags, message.durations);
        recordPageCache('invalidated', 1, 'tags');
      }
    });
    // Away, the store may have carried writes this instance never heard of.
    store.onBack(() => local.clear());
  }

  const found = (source: PageCacheSource) => recordPageCache('read', 1, source);

  /**
   * Keeps what a slower layer gave, unless a write or an invalidation came in while it was read.
   * `bytes`: its size where the layer's text already says it (the store's), else encoded to count.
   */
  const remember = (key: string, entry: CacheEntry, generation: number, bytes = approximateBytes(entry)) => {
    local.setIfUnchanged(key, entry, bytes, generation);
  };

  return {
    get: async (key, context) => {
      const held = local.get(key);
      if (held) {
        found('memory');
        // Answered after this turn of the event loop, not in a microtask. Next shares one read of a key
        // among the requests that ask while it is pending, and only then (the response cache's
        // getBatcher, node_modules/next/dist/server/response-cache/index.js, over
        // next/dist/lib/batcher.js, which forgets the read once it settles). Requests arriving in
        // the same poll phase are each parsed in a callback of their own, and a hit settled in
        // microtasks has settled before the next one asks: each paid the whole read (the response
        // cache's handleGet, the IncrementalCache's get, this). Past the turn, a burst shares one.
        // That also pays for what Next adds to every request under a custom handler and never to
        // its own cache: an import() of this handler's file, before any read
        // (getIncrementalCache, next/dist/server/route-modules/route-module.js). bench/README.md.
        await new Promise((resolve) => setImmediate(resolve));
        return held;
      }
      const generation = local.generation(key);
      if (store) {
        // Away, the store is not asked: the request waits on nothing.
        if (store.up()) {
          try {
            const text = await store.get(storeKey(namespace, key));
            const entry = text === null ? null : decodeEntry(text);
            if (entry) {
              // The store's text is the entry encoded: its length is what approximateBytes counts.
              remember(key, entry, generation, (text as string).length);
              found('store');
              return entry;
            }
          } catch {
            // Counted by the store; a miss here.
          }
        }
      } else if (disk) {
        const entry = await disk.get(key, context).catch(() => undefined);
        if (entry) {
          remember(key, entry, generation);
          found('disk');
          return entry;
        }
      }
      const seeded = await build.get(key, context).catch(() => undefined);
      if (seeded) {
        remember(key, seeded, generation);
        found('build');
        return seeded;
      }
      found('none');
      return null;
    },

    set: async (key, value, context) => {
      const entry: CacheEntry = {
        lastModified: parts.now(),
        value,
        ...(context.fetchCache !== true && context.cacheControl !== undefined
          ? { cacheControl: context.cacheControl }
          : {}),
      };
      if (store) {
        const text = encodeEntry(entry);
        local.set(key, entry, text.length);
        try {
          await store.setAndPublish(
            storeKey(namespace, key),
            text,
            parts.ttlSeconds,
            channel,
            JSON.stringify({ from: instance, key } satisfies Invalidation),
          );
          recordPageCache('write', 1, 'store');
        } catch {
          // Kept here only: the store is away, or full. Counted by the store.
          recordPageCache('write', 1, 'memory');
        }
        return;
      }
      local.set(key, entry, approximateBytes(entry));
      if (disk?.set) {
        try {
          await disk.set(key, value, context);
          recordPageCache('write', 1, 'disk');
          return;
        } catch (error) {
          // Told once, though several writes were under way when the folder failed.
          if (disk) {
            disk = null;
            parts.diskFailed(error);
          }
        }
      }
      recordPageCache('write', 1, 'memory');
    },

    revalidateTag: async (tags, durations) => {
      const list = typeof tags === 'string' ? [tags] : [...tags];
      if (list.length === 0) return;
      parts.expireTags(list, durations);
      if (!store?.up()) return;
      await store
        .publish(
          channel,
          JSON.stringify({
            from: instance,
            tags: list,
            ...(durations ? { durations } : {}),
          } satisfies Invalidation),
        )
        .catch(() => {
          // Counted by the store; the other instances find out at their entries' own lifetimes.
        });
    },
  };
}

/**
 * About how many bytes an entry holds, for the memory bound: its text's length, which is what Next's
 * own memory cache counts too (the HTML and the data, as JSON).
 */
export function approximateBytes(entry: CacheEntry): number {
  try {
    return encodeEntry(entry).length;
  } catch {
    return Number.MAX_SAFE_INTEGER;
  }
}
