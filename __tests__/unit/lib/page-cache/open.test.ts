// The process's page cache as lib/server/start.ts opens it (lib/page-cache/handler.ts): handed to
// Next, left alone where a platform gave Next one, without a store, with a folder that cannot be
// written, and with a store.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { settingsSlot } from '@lib/config/settings';
import PageCacheHandler, { openPageCache, pageCacheSlot } from '@lib/page-cache/handler';
import { pageCacheStoreSlot } from '@lib/health/page-cache-store';
import { startStoreServer } from '../../../support/store-server';
import { until } from '../../../support/until';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';

let root: string;
let serverDistDir: string;
let lines: { event?: string; [field: string]: unknown }[];
const saved = { ...process.env };

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'page-cache-open-'));
  serverDistDir = path.join(root, 'server');
  mkdirSync(serverDistDir);
  writeFileSync(path.join(root, 'BUILD_ID'), 'b1\n');
  lines = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: string | Uint8Array) => boolean;
    jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      const text = String(chunk);
      if (!text.startsWith('{"level":')) return write(chunk);
      for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      return true;
    });
  }
});

afterEach(async () => {
  await pageCacheStoreSlot.read()?.close();
  pageCacheStoreSlot.clear();
  pageCacheSlot.clear();
  settingsSlot.clear();
  delete (globalThis as { [NEXT_HANDLERS]?: unknown })[NEXT_HANDLERS];
  process.env = { ...saved };
  jest.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

const NEXT_HANDLERS = Symbol.for('@next/cache-handlers');
/** What Next reads for handlers a platform gave (made empty for each test). */
const nextHandlers = () => {
  const global = globalThis as { [NEXT_HANDLERS]?: Record<string, unknown> };
  return (global[NEXT_HANDLERS] ??= {});
};

const pageCacheLines = () => lines.filter((line) => line.event?.startsWith('page_cache.'));
const page = (html: string) => ({ kind: 'PAGES', html, pageData: {}, headers: {}, status: 200 });
const context = { kind: 'PAGES', isFallback: false } as const;

describe("the process's page cache", () => {
  it('hands Next the handler where Next looks for one a platform gave, keeping what else is there', () => {
    delete process.env.PAGE_CACHE_URL;
    const other = { kind: "a platform's remote cache" };
    nextHandlers().RemoteCache = other;
    openPageCache(serverDistDir);
    expect(nextHandlers()).toEqual({ RemoteCache: other, FetchCache: PageCacheHandler });
  });

  it('leaves a handler a platform handed Next in place, and opens nothing', async () => {
    process.env.PAGE_CACHE_URL = 'redis://127.0.0.1:1';
    class PlatformCache {}
    nextHandlers().FetchCache = PlatformCache;
    const close = openPageCache(serverDistDir);
    expect(nextHandlers().FetchCache).toBe(PlatformCache);
    expect(pageCacheSlot.read()).toBeUndefined();
    expect(pageCacheStoreSlot.read()).toBeUndefined();
    expect(existsSync(path.join(root, 'cache'))).toBe(false);
    expect(pageCacheLines()).toEqual([]);
    await expect(close()).resolves.toBeUndefined();
  });

  it("without a store: this build's pages in the writable cache folder, and says so", async () => {
    delete process.env.PAGE_CACHE_URL;
    const close = openPageCache(serverDistDir);
    expect(existsSync(path.join(root, 'cache', 'app-shell-pages', 'b1'))).toBe(true);
    expect(pageCacheStoreSlot.read()).toBeUndefined();
    expect(pageCacheLines()).toEqual([
      expect.objectContaining({
        level: 'info',
        event: 'page_cache.ready',
        build: 'b1',
        store: null,
        folder: true,
      }),
    ]);
    const handler = new PageCacheHandler({ serverDistDir, revalidatedTags: [], _requestHeaders: {} });
    await handler.set('/shoe', page('<p>shoe</p>'), { ...context, cacheControl: { revalidate: 60 } });
    expect(existsSync(path.join(root, 'cache', 'app-shell-pages', 'b1', 'pages', 'shoe.html'))).toBe(true);
    await close();
  });

  it('without a store and a folder that cannot be written: memory only, and a warning that says why', () => {
    delete process.env.PAGE_CACHE_URL;
    writeFileSync(path.join(root, 'cache'), 'not a folder');
    openPageCache(serverDistDir);
    expect(pageCacheLines()).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'page_cache.folder_unwritable',
        error: expect.objectContaining({ message: expect.any(String) }),
        message: expect.stringContaining('memory only'),
      }),
      expect.objectContaining({ event: 'page_cache.ready', folder: false }),
    ]);
  });

  it('with a store: connected at start, named without its password, no folder', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const { port } = probe.address() as AddressInfo;
    probe.close();
    await once(probe, 'close');
    const server = await startStoreServer(port);
    try {
      process.env.PAGE_CACHE_URL = `redis://:s3cret@127.0.0.1:${port}`;
      const close = openPageCache(serverDistDir);
      const store = pageCacheStoreSlot.read();
      expect(store).toBeDefined();
      await until(() => store!.up());
      expect(existsSync(path.join(root, 'cache'))).toBe(false);
      expect(pageCacheLines().find((line) => line.event === 'page_cache.ready')).toMatchObject({
        build: 'b1',
        store: `redis://127.0.0.1:${port}`,
        folder: false,
      });
      await close();
      expect(store!.up()).toBe(false);
      expect(JSON.stringify(lines)).not.toContain('s3cret');
    } finally {
      await server.stop();
    }
  });
});
