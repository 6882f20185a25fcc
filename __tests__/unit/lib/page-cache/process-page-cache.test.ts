// The process's page cache as Next's handler opens it (lib/page-cache/handler.ts, ./page-files.ts),
// without a store, on a build folder of its own: the build's pages read as Next wrote them and never
// written, regenerated pages in the writable cache folder of this build across a restart, the memory
// bound in MB from both sides. ./open.test.ts has the handing to Next, an unwritable folder and a store.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import FileSystemCache from 'next/dist/server/lib/incremental-cache/file-system-cache';
import { nodeFs } from 'next/dist/server/lib/node-fs-methods';
import { installSettings, readSettings, settingsSlot } from '@lib/config/settings';
import { recorderSlot } from '@lib/metrics/record';
import PageCacheHandler, { openPageCache, pageCacheSlot } from '@lib/page-cache/handler';
import type { CacheContext } from '@lib/page-cache/page-cache';
import { recorderWith } from '../../../support/recorder';

const CONTEXT = { kind: 'PAGES', isFallback: false } as unknown as CacheContext;
const page = (html: string) => ({ kind: 'PAGES', html, pageData: { html }, headers: {}, status: 200 });
const WRITE = {
  ...CONTEXT,
  cacheControl: { revalidate: 3600, expire: undefined },
} as unknown as CacheContext;

let root: string;
let distDir: string;
let serverDir: string;
let lines: Array<Record<string, unknown>>;
let reads: string[];

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'process-page-cache-'));
  distDir = path.join(root, '.next');
  serverDir = path.join(distDir, 'server');
  mkdirSync(path.join(serverDir, 'pages'), { recursive: true });
  writeFileSync(path.join(distDir, 'BUILD_ID'), 'build-7\n');
  lines = [];
  reads = [];
  recorderSlot.write(
    recorderWith({
      pageCache: (event, _amount, label) => {
        if (event === 'read') reads.push(label);
      },
    }),
  );
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

afterEach(() => {
  jest.restoreAllMocks();
  pageCacheSlot.clear();
  settingsSlot.clear();
  recorderSlot.clear();
  delete (globalThis as { [key: symbol]: unknown })[Symbol.for('@next/cache-handlers')];
  chmodSync(root, 0o700);
  rmSync(root, { recursive: true, force: true });
});

const settingsWith = (env: Record<string, string>) => installSettings(readSettings(env));
const handler = () =>
  new PageCacheHandler({ serverDistDir: serverDir, fs: nodeFs, revalidatedTags: [], _requestHeaders: {} });
const pageCacheLines = () => lines.filter((line) => String(line.event).startsWith('page_cache.'));

/** A page of the build, laid out by Next's own file-system cache, as `next build` lays it. */
async function prerender(key: string, html: string) {
  const next = new FileSystemCache({
    fs: nodeFs,
    serverDistDir: serverDir,
    flushToDisk: true,
    maxMemoryCacheSize: 0,
    revalidatedTags: [],
    _requestHeaders: {},
  });
  await next.set(key, page(html) as never, WRITE as never);
}

/** Every file under `folder`, relative to it. */
function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return (readdirSync(folder, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[])
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(folder, path.join(entry.parentPath, entry.name)))
    .sort();
}

describe('without a store', () => {
  it("serves the build's pages as Next wrote them, and never writes into the build", async () => {
    settingsWith({});
    await prerender('/blog/hello', '<p>from the build</p>');
    const built = filesUnder(serverDir);
    const cache = handler();
    const entry = await cache.get('/blog/hello', CONTEXT);
    expect(entry?.value).toMatchObject({ kind: 'PAGES', html: '<p>from the build</p>' });
    expect(reads).toEqual(['build']);
    await cache.set('/blog/hello', page('<p>regenerated</p>'), WRITE);
    expect(filesUnder(serverDir)).toEqual(built);
  });

  it("keeps a regenerated page in this build's writable cache folder, where a restart finds it", async () => {
    settingsWith({});
    const folder = path.join(distDir, 'cache', 'app-shell-pages', 'build-7');
    await handler().set('/blog/new', page('<p>new</p>'), WRITE);
    expect(filesUnder(folder)).toEqual(['pages/blog/new.html', 'pages/blog/new.json', 'pages/blog/new.meta']);
    // A restart: a new process's cache, its memory empty.
    pageCacheSlot.clear();
    const entry = await handler().get('/blog/new', CONTEXT);
    expect(entry?.value).toMatchObject({ kind: 'PAGES', html: '<p>new</p>' });
    expect(reads).toEqual(['disk']);
    expect(pageCacheLines().map((line) => [line.event, line.folder, line.store, line.build])).toEqual([
      ['page_cache.ready', true, null, 'build-7'],
      ['page_cache.ready', true, null, 'build-7'],
    ]);
  });

  it('keeps as many bytes in memory as PAGE_CACHE_MEMORY_MB says, counted in MB', async () => {
    // 1 MB holds a page of 300 KB; a bound read as KB (or bytes) would hold none, so the
    // second read would go to the folder.
    settingsWith({ PAGE_CACHE_MEMORY_MB: '1' });
    const cache = handler();
    const big = `<p>${'x'.repeat(300_000)}</p>`;
    await cache.set('/blog/big', page(big), WRITE);
    await cache.get('/blog/big', CONTEXT);
    expect(reads).toEqual(['memory']);
    // 1 MB does not hold a page of 1.2 MB: a bound read as GB would.
    await cache.set('/blog/bigger', page(`<p>${'y'.repeat(1_200_000)}</p>`), WRITE);
    await cache.get('/blog/bigger', CONTEXT);
    expect(reads).toEqual(['memory', 'disk']);
    expect(pageCacheLines()[0]).toMatchObject({ event: 'page_cache.ready', memoryMb: 1 });
  });
});

describe('opened at start', () => {
  it('is the one every later handler of the process uses, and closes with nothing to close', async () => {
    settingsWith({});
    const close = openPageCache(serverDir);
    await handler().set('/blog/new', page('<p>new</p>'), WRITE);
    await handler().get('/blog/new', CONTEXT);
    expect(reads).toEqual(['memory']);
    expect(pageCacheLines().map((line) => line.event)).toEqual(['page_cache.ready']);
    await expect(close()).resolves.toBeUndefined();
  });
});
