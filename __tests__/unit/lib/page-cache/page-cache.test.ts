// The page cache of one process (lib/page-cache/page-cache.ts) over a made-up store and made-up
// folders of pages: which layer answers a read, where a write is kept, and what a peer's message does.
import { recorderWith } from '../../../support/recorder';
import { encodeEntry, decodeEntry, type CacheEntry } from '@lib/page-cache/codec';
import { createLocalLayer, type LocalLayer } from '@lib/page-cache/local-layer';
import { channelName, storeKey } from '@lib/page-cache/namespace';
import {
  approximateBytes,
  createPageCache,
  parseInvalidation,
  type CacheContext,
  type PageCache,
  type PageCacheParts,
  type PageFiles,
} from '@lib/page-cache/page-cache';
import type { PageStore } from '@lib/page-cache/store';
import { recorderSlot } from '@lib/metrics/record';

const NAMESPACE = 'build-7';
const CHANNEL = channelName(NAMESPACE);
const ME = 'instance-me';
const PEER = 'instance-peer';
const NOW = 1_700_000_000_000;
const context: CacheContext = { kind: 'PAGES', isFallback: false };

let counted: string[];

beforeEach(() => {
  counted = [];
  recorderSlot.write(
    recorderWith({ pageCache: (event, amount, label) => counted.push(`${event} ${label} ${amount}`) }),
  );
});

afterEach(() => recorderSlot.clear());

const page = (html: string, lastModified = NOW - 60_000): CacheEntry => ({
  lastModified,
  value: { kind: 'PAGES', html, pageData: { pageProps: { html } }, headers: {}, status: 200 },
});

/** A promise the test settles itself. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A store in this process: what it holds, whether it is up, and the messages its listeners hear. */
function madeUpStore() {
  const texts = new Map<string, string>();
  const listeners: { channel: string; listener: (message: string) => void }[] = [];
  const backListeners: (() => void)[] = [];
  const state = { up: true, failWrites: false };
  const store = {
    get: jest.fn<Promise<string | null>, [key: string]>(async (key) => texts.get(key) ?? null),
    setAndPublish: jest.fn<Promise<void>, Parameters<PageStore['setAndPublish']>>(async (key, text) => {
      if (state.failWrites || !state.up) throw new Error('OOM command not allowed');
      texts.set(key, text);
    }),
    publish: jest.fn<Promise<void>, Parameters<PageStore['publish']>>(async () => {
      if (!state.up) throw new Error('the store is not connected');
    }),
    listen: jest.fn<void, Parameters<PageStore['listen']>>((channel, listener) => {
      listeners.push({ channel, listener });
    }),
    onBack: (listener: () => void) => {
      backListeners.push(listener);
    },
    up: () => state.up,
    close: async () => {},
  } satisfies PageStore;
  return {
    store,
    texts,
    state,
    /** A message on `channel`, as every instance listening there hears it. */
    hear: (message: string, channel = CHANNEL) => {
      for (const entry of listeners) if (entry.channel === channel) entry.listener(message);
    },
    back: () => {
      for (const listener of backListeners) listener();
    },
  };
}

/** A folder of pages, read and (when `writable`) written. */
function madeUpFiles(entries: Record<string, CacheEntry> = {}, writable = false) {
  const files = {
    get: jest.fn<Promise<CacheEntry | null>, Parameters<PageFiles['get']>>(
      async (key) => entries[key] ?? null,
    ),
    set: jest.fn<Promise<void>, Parameters<NonNullable<PageFiles['set']>>>(async (key, value) => {
      entries[key] = { lastModified: NOW, value };
    }),
  };
  const pageFiles: PageFiles = writable ? files : { get: files.get };
  return { files, pageFiles, entries };
}

function cacheOf(parts: Partial<PageCacheParts> = {}): {
  cache: PageCache;
  local: LocalLayer<CacheEntry>;
  parts: PageCacheParts;
} {
  const local = parts.local ?? createLocalLayer<CacheEntry>(1024 * 1024);
  const all: PageCacheParts = {
    namespace: NAMESPACE,
    local,
    store: null,
    disk: null,
    build: madeUpFiles().pageFiles,
    ttlSeconds: 604_800,
    instance: ME,
    now: () => NOW,
    diskFailed: jest.fn(),
    expireTags: jest.fn(),
    ...parts,
  };
  return { cache: createPageCache(all), local, parts: all };
}

const reads = () => counted.filter((line) => line.startsWith('read '));

describe('a read of the page cache', () => {
  it('is answered from memory, asking neither the store nor the build', async () => {
    const { store } = madeUpStore();
    const build = madeUpFiles({ '/shoe': page('build') });
    const { cache, local } = cacheOf({ store, build: build.pageFiles });
    local.set('/shoe', page('memory'), 100);
    expect(await cache.get('/shoe', context)).toEqual(page('memory'));
    expect(store.get).not.toHaveBeenCalled();
    expect(build.files.get).not.toHaveBeenCalled();
    expect(counted).toEqual(['read memory 1']);
  });

  it("is answered by the store under the build's key, and the store's entry kept in memory", async () => {
    const made = madeUpStore();
    const entry = { ...page('from a peer'), cacheControl: { revalidate: 60 } };
    made.texts.set(storeKey(NAMESPACE, '/shoe'), encodeEntry(entry));
    const build = madeUpFiles({ '/shoe': page('build') });
    const { cache } = cacheOf({ store: made.store, build: build.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(entry);
    expect(made.store.get).toHaveBeenCalledWith('app-shell:page:build-7:/shoe');
    expect(build.files.get).not.toHaveBeenCalled();
    expect(await cache.get('/shoe', context)).toEqual(entry);
    expect(made.store.get).toHaveBeenCalledTimes(1);
    expect(counted).toEqual(['read store 1', 'read memory 1']);
  });

  it("is seeded from the build's own pages when the store has none, and the seed kept in memory", async () => {
    const { store } = madeUpStore();
    const build = madeUpFiles({ '/shoe': page('build') });
    const { cache } = cacheOf({ store, build: build.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(build.files.get).toHaveBeenCalledWith('/shoe', context);
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(store.get).toHaveBeenCalledTimes(1);
    expect(build.files.get).toHaveBeenCalledTimes(1);
    expect(counted).toEqual(['read build 1', 'read memory 1']);
  });

  it('takes text in the store that is no entry for a miss', async () => {
    const made = madeUpStore();
    made.texts.set(storeKey(NAMESPACE, '/shoe'), 'written by something else');
    const build = madeUpFiles({ '/shoe': page('build') });
    const { cache } = cacheOf({ store: made.store, build: build.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(reads()).toEqual(['read build 1']);
  });

  it('does not ask a store that is away at all, and seeds from the build', async () => {
    const made = madeUpStore();
    made.state.up = false;
    made.texts.set(storeKey(NAMESPACE, '/shoe'), encodeEntry(page('store')));
    const build = madeUpFiles({ '/shoe': page('build') });
    const disk = madeUpFiles({ '/shoe': page('disk') }, true);
    const { cache } = cacheOf({ store: made.store, build: build.pageFiles, disk: disk.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(made.store.get).not.toHaveBeenCalled();
    expect(disk.files.get).not.toHaveBeenCalled();
    expect(reads()).toEqual(['read build 1']);
  });

  it('takes a store that fails to answer for a miss, and seeds from the build', async () => {
    const { store } = madeUpStore();
    store.get.mockRejectedValueOnce(new Error('no answer from the store within 100 ms'));
    const build = madeUpFiles({ '/shoe': page('build') });
    const { cache } = cacheOf({ store, build: build.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(reads()).toEqual(['read build 1']);
  });

  it('is a miss, counted as none and kept nowhere, when no layer has the page', async () => {
    const { store } = madeUpStore();
    const build = madeUpFiles();
    const { cache, local } = cacheOf({ store, build: build.pageFiles });
    expect(await cache.get('/new', context)).toBeNull();
    expect(local.size()).toBe(0);
    expect(await cache.get('/new', context)).toBeNull();
    expect(store.get).toHaveBeenCalledTimes(2);
    expect(reads()).toEqual(['read none 1', 'read none 1']);
  });

  it('takes a build folder that fails to read for a miss, not an error', async () => {
    const build = madeUpFiles();
    build.files.get.mockRejectedValueOnce(new Error('EACCES'));
    const { cache } = cacheOf({ build: build.pageFiles });
    await expect(cache.get('/shoe', context)).resolves.toBeNull();
    expect(reads()).toEqual(['read none 1']);
  });

  it('reads the writable cache folder where there is no store, before the build, and keeps its page in memory', async () => {
    const build = madeUpFiles({ '/shoe': page('build') });
    const disk = madeUpFiles({ '/shoe': page('disk') }, true);
    const { cache } = cacheOf({ build: build.pageFiles, disk: disk.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('disk'));
    expect(disk.files.get).toHaveBeenCalledWith('/shoe', context);
    expect(build.files.get).not.toHaveBeenCalled();
    expect(await cache.get('/shoe', context)).toEqual(page('disk'));
    expect(disk.files.get).toHaveBeenCalledTimes(1);
    expect(reads()).toEqual(['read disk 1', 'read memory 1']);
  });

  it('does not read the cache folder where there is a store, even when the store has no page', async () => {
    const { store } = madeUpStore();
    const build = madeUpFiles({ '/shoe': page('build') });
    const disk = madeUpFiles({ '/shoe': page('disk') }, true);
    const { cache } = cacheOf({ store, build: build.pageFiles, disk: disk.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(disk.files.get).not.toHaveBeenCalled();
  });

  it('takes a cache folder that fails to read for a miss, and seeds from the build', async () => {
    const build = madeUpFiles({ '/shoe': page('build') });
    const disk = madeUpFiles({}, true);
    disk.files.get.mockRejectedValueOnce(new Error('EIO'));
    const { cache } = cacheOf({ build: build.pageFiles, disk: disk.pageFiles });
    expect(await cache.get('/shoe', context)).toEqual(page('build'));
    expect(reads()).toEqual(['read build 1']);
  });

  it("serves a store's page larger than the memory bound, but does not keep it", async () => {
    const made = madeUpStore();
    const entry = page('x'.repeat(2000));
    made.texts.set(storeKey(NAMESPACE, '/big'), encodeEntry(entry));
    const { cache, local } = cacheOf({ store: made.store, local: createLocalLayer<CacheEntry>(2000) });
    expect(await cache.get('/big', context)).toEqual(entry);
    expect(local.size()).toBe(0);
  });
});

describe('a write to the page cache', () => {
  it("goes to the store under the build's key, with the TTL, and a message naming the key and this instance", async () => {
    const made = madeUpStore();
    const { cache } = cacheOf({ store: made.store, ttlSeconds: 3600 });
    const value = page('new').value;
    await cache.set('/shoe', value, { ...context, cacheControl: { revalidate: 60 } });
    expect(made.store.setAndPublish).toHaveBeenCalledTimes(1);
    const [key, text, ttl, channel, message] = made.store.setAndPublish.mock.calls[0];
    expect(key).toBe('app-shell:page:build-7:/shoe');
    expect(decodeEntry(text)).toEqual({ lastModified: NOW, value, cacheControl: { revalidate: 60 } });
    expect(ttl).toBe(3600);
    expect(channel).toBe('app-shell:page:build-7:written');
    expect(JSON.parse(message)).toEqual({ from: ME, key: '/shoe' });
    expect(counted).toEqual(['write store 1']);
  });

  it('is served from memory next, without asking the store', async () => {
    const made = madeUpStore();
    const { cache } = cacheOf({ store: made.store });
    await cache.set('/shoe', page('new').value, context);
    expect(await cache.get('/shoe', context)).toEqual({ lastModified: NOW, value: page('new').value });
    expect(made.store.get).not.toHaveBeenCalled();
  });

  it("is counted against the memory bound by its text's length", async () => {
    const made = madeUpStore();
    const value = page('x'.repeat(1500)).value;
    const bytes = encodeEntry({ lastModified: NOW, value }).length;
    const { cache, local } = cacheOf({ store: made.store, local: createLocalLayer<CacheEntry>(bytes) });
    await cache.set('/shoe', value, context);
    expect(local.bytes()).toBe(bytes);
    await cache.set('/other', { kind: 'PAGES', html: '' }, context);
    // The first page no longer fits beside the second: out it goes.
    expect(local.get('/shoe')).toBeUndefined();
  });

  it("is still served from memory, and counted as kept in memory, when the store's write fails", async () => {
    const made = madeUpStore();
    made.state.failWrites = true;
    const { cache } = cacheOf({ store: made.store });
    await expect(cache.set('/shoe', page('new').value, context)).resolves.toBeUndefined();
    expect(await cache.get('/shoe', context)).toEqual({ lastModified: NOW, value: page('new').value });
    expect(made.store.get).not.toHaveBeenCalled();
    expect(counted).toEqual(['write memory 1', 'read memory 1']);
  });

  it("keeps Next's cacheControl with the entry", async () => {
    const { cache, local } = cacheOf();
    await cache.set('/shoe', page('new').value, {
      ...context,
      cacheControl: { revalidate: 30, expire: 300 },
    });
    expect(local.get('/shoe')?.cacheControl).toEqual({ revalidate: 30, expire: 300 });
  });

  it('keeps no cacheControl for a fetch cache entry, nor where Next gives none', async () => {
    const { cache, local } = cacheOf();
    await cache.set('fetch-key', { kind: 'FETCH' }, { fetchCache: true, cacheControl: { revalidate: 30 } });
    expect(local.get('fetch-key')).toEqual({ lastModified: NOW, value: { kind: 'FETCH' } });
    await cache.set('/shoe', page('new').value, context);
    expect(local.get('/shoe')).not.toHaveProperty('cacheControl');
  });

  it('goes to the writable cache folder where there is no store, and is served from memory next', async () => {
    const disk = madeUpFiles({}, true);
    const { cache } = cacheOf({ disk: disk.pageFiles });
    const writeContext = { ...context, cacheControl: { revalidate: 60 } };
    await cache.set('/shoe', page('new').value, writeContext);
    expect(disk.files.set).toHaveBeenCalledWith('/shoe', page('new').value, writeContext);
    expect(await cache.get('/shoe', context)).toEqual({
      lastModified: NOW,
      value: page('new').value,
      cacheControl: { revalidate: 60 },
    });
    expect(disk.files.get).not.toHaveBeenCalled();
    expect(counted).toEqual(['write disk 1', 'read memory 1']);
  });

  it('tells once that the cache folder failed a write, and uses the folder no more', async () => {
    const disk = madeUpFiles({ '/other': page('disk') }, true);
    const failure = new Error('ENOSPC');
    disk.files.set.mockRejectedValueOnce(failure);
    const build = madeUpFiles({ '/other': page('build') });
    const { cache, parts } = cacheOf({ disk: disk.pageFiles, build: build.pageFiles });
    await cache.set('/shoe', page('first').value, context);
    await cache.set('/hat', page('second').value, context);
    expect(parts.diskFailed).toHaveBeenCalledTimes(1);
    expect(parts.diskFailed).toHaveBeenCalledWith(failure);
    expect(disk.files.set).toHaveBeenCalledTimes(1);
    // Nor for reads: the folder's page is not served, the build's is.
    expect(await cache.get('/other', context)).toEqual(page('build'));
    expect(disk.files.get).not.toHaveBeenCalled();
    expect(counted).toEqual(['write memory 1', 'write memory 1', 'read build 1']);
  });

  it('tells once that the cache folder failed, though several writes were under way when it did', async () => {
    const disk = madeUpFiles({}, true);
    const writes = [deferred<void>(), deferred<void>()];
    disk.files.set
      .mockImplementationOnce(() => writes[0].promise)
      .mockImplementationOnce(() => writes[1].promise);
    const { cache, parts } = cacheOf({ disk: disk.pageFiles });
    const first = cache.set('/shoe', page('first').value, context);
    const second = cache.set('/hat', page('second').value, context);
    writes[0].reject(new Error('ENOSPC'));
    writes[1].reject(new Error('ENOSPC'));
    await Promise.all([first, second]);
    expect(parts.diskFailed).toHaveBeenCalledTimes(1);
    expect(counted).toEqual(['write memory 1', 'write memory 1']);
  });

  it('is kept in memory only where there is neither a store nor a cache folder', async () => {
    const build = madeUpFiles();
    const { cache } = cacheOf({ build: build.pageFiles });
    await cache.set('/shoe', page('new').value, context);
    expect(await cache.get('/shoe', context)).toEqual({ lastModified: NOW, value: page('new').value });
    expect(counted).toEqual(['write memory 1', 'read memory 1']);
  });

  it('is what memory keeps, though a read of the same page from the store was under way', async () => {
    const made = madeUpStore();
    const answer = deferred<string | null>();
    made.store.get.mockImplementationOnce(() => answer.promise);
    const { cache, local } = cacheOf({ store: made.store });
    const reading = cache.get('/shoe', context);
    await cache.set('/shoe', page('new').value, context);
    answer.resolve(encodeEntry(page('old')));
    expect(await reading).toEqual(page('old'));
    expect(local.get('/shoe')).toEqual({ lastModified: NOW, value: page('new').value });
  });
});

describe("a message on the build's channel", () => {
  it("is listened for on the build's own channel", () => {
    const { store } = madeUpStore();
    cacheOf({ store });
    expect(store.listen).toHaveBeenCalledTimes(1);
    expect(store.listen).toHaveBeenCalledWith('app-shell:page:build-7:written', expect.any(Function));
  });

  it('from another instance that wrote a page drops the page from memory: the next read asks the store', async () => {
    const made = madeUpStore();
    const { cache, local } = cacheOf({ store: made.store });
    local.set('/shoe', page('mine'), 100);
    local.set('/hat', page('hat'), 100);
    made.texts.set(storeKey(NAMESPACE, '/shoe'), encodeEntry(page('theirs')));
    made.hear(JSON.stringify({ from: PEER, key: '/shoe' }));
    expect(counted).toEqual(['invalidated key 1']);
    expect(await cache.get('/shoe', context)).toEqual(page('theirs'));
    expect(made.store.get).toHaveBeenCalledTimes(1);
    expect(await cache.get('/hat', context)).toEqual(page('hat'));
    expect(made.store.get).toHaveBeenCalledTimes(1);
  });

  it('from this instance itself is ignored: its page stays in memory', async () => {
    const made = madeUpStore();
    const { cache } = cacheOf({ store: made.store });
    await cache.set('/shoe', page('mine').value, context);
    made.hear(made.store.setAndPublish.mock.calls[0][4]);
    expect(await cache.get('/shoe', context)).toEqual({ lastModified: NOW, value: page('mine').value });
    expect(made.store.get).not.toHaveBeenCalled();
    expect(counted).toEqual(['write store 1', 'read memory 1']);
  });

  it('arriving while a read from the store is under way keeps the old page out of memory', async () => {
    const made = madeUpStore();
    const answer = deferred<string | null>();
    made.store.get.mockImplementationOnce(() => answer.promise);
    const { cache, local } = cacheOf({ store: made.store });
    const reading = cache.get('/shoe', context);
    made.hear(JSON.stringify({ from: PEER, key: '/shoe' }));
    // The store answers what it had before the peer's write.
    answer.resolve(encodeEntry(page('old')));
    expect(await reading).toEqual(page('old'));
    expect(local.get('/shoe')).toBeUndefined();
    made.texts.set(storeKey(NAMESPACE, '/shoe'), encodeEntry(page('new')));
    expect(await cache.get('/shoe', context)).toEqual(page('new'));
  });

  it("arriving in a peer's burst of thousands while a read from the store is under way keeps the old page out of memory", async () => {
    const made = madeUpStore();
    const answer = deferred<string | null>();
    made.store.get.mockImplementationOnce(() => answer.promise);
    const { cache, local } = cacheOf({ store: made.store });
    const reading = cache.get('/shoe', context);
    // A CMS revalidates every product at once: the messages come in before the read's answer.
    made.hear(JSON.stringify({ from: PEER, key: '/shoe' }));
    for (let n = 0; n < 3000; n += 1) made.hear(JSON.stringify({ from: PEER, key: `/product/${n}` }));
    answer.resolve(encodeEntry(page('old')));
    expect(await reading).toEqual(page('old'));
    expect(local.get('/shoe')).toBeUndefined();
  });

  it("about tags from another instance applies them here, as Next's own cache would", () => {
    const made = madeUpStore();
    const { parts, local } = cacheOf({ store: made.store });
    local.set('/shoe', page('mine'), 100);
    made.hear(JSON.stringify({ from: PEER, tags: ['product-7', 'shoes'], durations: { expire: 60 } }));
    made.hear(JSON.stringify({ from: PEER, tags: ['hats'] }));
    expect(parts.expireTags).toHaveBeenNthCalledWith(1, ['product-7', 'shoes'], { expire: 60 });
    expect(parts.expireTags).toHaveBeenNthCalledWith(2, ['hats'], undefined);
    expect(counted).toEqual(['invalidated tags 1', 'invalidated tags 1']);
    // The page itself stays: the handler checks its tags at each read.
    expect(local.get('/shoe')).toEqual(page('mine'));
  });

  it('about tags from this instance itself is ignored', () => {
    const made = madeUpStore();
    const { parts } = cacheOf({ store: made.store });
    made.hear(JSON.stringify({ from: ME, tags: ['product-7'] }));
    expect(parts.expireTags).not.toHaveBeenCalled();
    expect(counted).toEqual([]);
  });

  it('that is malformed is ignored, and drops nothing', () => {
    const made = madeUpStore();
    const { parts, local } = cacheOf({ store: made.store });
    local.set('/shoe', page('mine'), 100);
    for (const text of ['not json', '{}', JSON.stringify({ key: '/shoe' }), JSON.stringify({ from: PEER })])
      made.hear(text);
    expect(local.get('/shoe')).toEqual(page('mine'));
    expect(parts.expireTags).not.toHaveBeenCalled();
    expect(counted).toEqual([]);
  });
});

describe('the store back after it was away', () => {
  it('empties memory: the next read asks the store', async () => {
    const made = madeUpStore();
    const { cache, local } = cacheOf({ store: made.store });
    local.set('/shoe', page('before'), 100);
    made.texts.set(storeKey(NAMESPACE, '/shoe'), encodeEntry(page('written meanwhile')));
    made.back();
    expect(local.size()).toBe(0);
    expect(await cache.get('/shoe', context)).toEqual(page('written meanwhile'));
    expect(made.store.get).toHaveBeenCalledTimes(1);
  });
});

describe('a tag revalidated through this instance', () => {
  it('is applied here and told to every instance of the build', async () => {
    const made = madeUpStore();
    const { cache, parts } = cacheOf({ store: made.store });
    await cache.revalidateTag('product-7');
    expect(parts.expireTags).toHaveBeenCalledWith(['product-7'], undefined);
    expect(made.store.publish).toHaveBeenCalledTimes(1);
    const [channel, message] = made.store.publish.mock.calls[0];
    expect(channel).toBe(CHANNEL);
    expect(JSON.parse(message)).toEqual({ from: ME, tags: ['product-7'] });
  });

  it('carries its durations to the other instances', async () => {
    const made = madeUpStore();
    const { cache, parts } = cacheOf({ store: made.store });
    await cache.revalidateTag(['a', 'b'], { expire: 120 });
    expect(parts.expireTags).toHaveBeenCalledWith(['a', 'b'], { expire: 120 });
    const [, message] = made.store.publish.mock.calls[0];
    expect(JSON.parse(message)).toEqual({ from: ME, tags: ['a', 'b'], durations: { expire: 120 } });
  });

  it('is applied here only while the store is away', async () => {
    const made = madeUpStore();
    made.state.up = false;
    const { cache, parts } = cacheOf({ store: made.store });
    await cache.revalidateTag('product-7');
    expect(parts.expireTags).toHaveBeenCalledWith(['product-7'], undefined);
    expect(made.store.publish).not.toHaveBeenCalled();
  });

  it('is applied here, and does not fail, when telling the others fails', async () => {
    const made = madeUpStore();
    made.store.publish.mockRejectedValueOnce(new Error('no answer from the store within 100 ms'));
    const { cache, parts } = cacheOf({ store: made.store });
    await expect(cache.revalidateTag('product-7')).resolves.toBeUndefined();
    expect(parts.expireTags).toHaveBeenCalledWith(['product-7'], undefined);
  });

  it('is applied here where there is no store', async () => {
    const { cache, parts } = cacheOf();
    await cache.revalidateTag(['product-7']);
    expect(parts.expireTags).toHaveBeenCalledWith(['product-7'], undefined);
  });

  it('is nothing at all when no tag is named', async () => {
    const made = madeUpStore();
    const { cache, parts } = cacheOf({ store: made.store });
    await cache.revalidateTag([]);
    expect(parts.expireTags).not.toHaveBeenCalled();
    expect(made.store.publish).not.toHaveBeenCalled();
  });
});

describe('a message read off the channel', () => {
  it('names a key written, or tags revalidated with their durations, and nothing else', () => {
    expect(parseInvalidation(JSON.stringify({ from: PEER, key: '/shoe', extra: 1 }))).toEqual({
      from: PEER,
      key: '/shoe',
    });
    expect(parseInvalidation(JSON.stringify({ from: PEER, tags: ['a'], durations: { expire: 5 } }))).toEqual({
      from: PEER,
      tags: ['a'],
      durations: { expire: 5 },
    });
    expect(
      parseInvalidation(JSON.stringify({ from: PEER, tags: ['a'], durations: { expire: '5' } })),
    ).toEqual({
      from: PEER,
      tags: ['a'],
    });
  });

  it('is refused when it is not one', () => {
    for (const text of [
      'not json',
      'null',
      '42',
      '"text"',
      JSON.stringify({ key: '/shoe' }),
      JSON.stringify({ from: 7, key: '/shoe' }),
      JSON.stringify({ from: PEER }),
      JSON.stringify({ from: PEER, key: 7 }),
      JSON.stringify({ from: PEER, tags: 'a' }),
      JSON.stringify({ from: PEER, tags: ['a', 7] }),
    ])
      expect([text, parseInvalidation(text)]).toEqual([text, null]);
  });
});

describe('the size of an entry in memory', () => {
  it("is its text's length, as the store keeps it", () => {
    const entry: CacheEntry = { lastModified: NOW, value: { kind: 'APP_ROUTE', body: Buffer.alloc(3000) } };
    expect(approximateBytes(entry)).toBe(encodeEntry(entry).length);
    // A Buffer counts as its base64 text: a third more than its bytes.
    expect(approximateBytes(entry)).toBeGreaterThanOrEqual(4000);
  });

  it('is too large to keep for an entry that cannot be written as text', () => {
    const value: Record<string, unknown> = { kind: 'PAGES' };
    value.self = value;
    expect(approximateBytes({ lastModified: NOW, value })).toBe(Number.MAX_SAFE_INTEGER);
  });
});
