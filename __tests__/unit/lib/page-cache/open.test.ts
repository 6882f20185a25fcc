// The process's page cache as lib/server/start.ts opens it (lib/page-cache/handler.ts): while
// `next build` prerenders, without a store, with a folder that cannot be written, and with a store.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { settingsSlot } from '../../../../lib/config/settings';
import PageCacheHandler, { openPageCache, pageCacheSlot } from '../../../../lib/page-cache/handler';
import { pageCacheStoreSlot } from '../../../../lib/page-cache/store-check';
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
  process.env = { ...saved };
  jest.restoreAllMocks();
  rmSync(root, { recursive: true, force: true });
});

const pageCacheLines = () => lines.filter((line) => line.event?.startsWith('page_cache.'));
const page = (html: string) => ({ kind: 'PAGES', html, pageData: {}, headers: {}, status: 200 });
const context = { kind: 'PAGES', isFallback: false } as const;

describe("the process's page cache", () => {
  it('while the build prerenders: no store, no folder, no word, and pages kept in memory by the megabyte', async () => {
    process.env.NEXT_PHASE = 'phase-production-build';
    process.env.PAGE_CACHE_URL = 'redis://127.0.0.1:1';
    process.env.PAGE_CACHE_MEMORY_MB = '1';
    const handler = new PageCacheHandler({ serverDistDir, revalidatedTags: [], _requestHeaders: {} });
    expect(pageCacheStoreSlot.read()).toBeUndefined();
    // 200 KB: more than a thousandth of the megabyte given, less than the megabyte.
    const html = 'x'.repeat(200_000);
    await handler.set('/shoe', page(html), context);
    expect(await handler.get('/shoe', context)).toMatchObject({ value: { html } });
    expect(existsSync(path.join(root, 'cache'))).toBe(false);
    expect(pageCacheLines()).toEqual([]);
  });

  it("without a store: this build's pages in the writable cache folder, and says so", async () => {
    delete process.env.NEXT_PHASE;
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
    delete process.env.NEXT_PHASE;
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
      delete process.env.NEXT_PHASE;
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
