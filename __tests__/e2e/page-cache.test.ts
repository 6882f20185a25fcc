// One product page across the fleet (docs/page-cache.md): two instances of one build, each with its
// own copy of the build as each pod has its own file system, the copy mounted read-only as the
// shipped Deployment mounts it (readOnlyRootFilesystem: a bind mount in a mount namespace of the
// server's own, so a write there fails with EROFS, root or not), only `.next/cache` writable (its
// emptyDir), and one real redis-server as the shared store. The example product's ISR page
// (pages/blog/[slug].tsx: getStaticProps, revalidate 10 s, fallback 'blocking') and its CMS webhook
// (pages/api/revalidate.ts: res.revalidate()) are the product. The same harness with Next's own page
// cache shows what the shell's mends: stale pages on the other pod, warnings on every regeneration.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerProcess, type ServerProcess } from '../../scripts/lib/server-process';
import { buildProduct, NEXT_DEPLOYMENT, PARITY_PRODUCTS, prebuiltProduct } from '../support/product-build';
import { NEXT_OWN_CACHE } from '../../bench/lib/page-cache-build';
import { freePort } from '../support/server';
import { type StoreServer, startStoreServer } from '../support/store-server';
import { until } from '../support/until';

jest.setTimeout(180_000);

const PRODUCT = PARITY_PRODUCTS.find((product) => product.name === 'default')!;
const WARNING = 'Failed to update prerender cache';

const made: string[] = [];
const running: ServerProcess[] = [];
let store: StoreServer;
let built: string;
let otherBuild: string;

/** A product build made before the tests, or now (removed after). */
function productDir(product: typeof PRODUCT): string {
  const before = prebuiltProduct(product.name);
  if (before) return before;
  const dir = buildProduct(product);
  made.push(dir);
  return dir;
}

/** A pod's own copy of the build (node_modules stays the shared link). */
function copyOf(dir: string, edit?: (copy: string) => void): string {
  const copy = mkdtempSync(path.join(tmpdir(), 'app-shell-pod-'));
  made.push(copy);
  cpSync(dir, copy, { recursive: true, verbatimSymlinks: true });
  edit?.(copy);
  return copy;
}

/** Next's own page cache in the shell's server, the build unchanged (the preloaded file says how). */
const NEXTS_OWN_CACHE = { NODE_OPTIONS: `--require ${NEXT_OWN_CACHE}` };

/** A pod's writable `.next/cache` (an emptyDir): kept across a restart of its container. */
function emptyDir(): string {
  const folder = mkdtempSync(path.join(tmpdir(), 'app-shell-pod-cache-'));
  made.push(folder);
  return folder;
}

/**
 * `npm start` in `copy` as the Deployment runs it: the copy read-only, only `.next/cache` writable
 * (a fresh folder, as an emptyDir). `unshare -m` gives the server a mount namespace of its own, so
 * the mounts are the server's alone and go with it.
 */
async function startPod(
  copy: string,
  env: Record<string, string>,
  cache = emptyDir(),
): Promise<ServerProcess> {
  const script = [
    'set -e',
    'mount --bind "$POD" "$POD"',
    'mount -o remount,bind,ro "$POD"',
    'mount --bind "$POD_CACHE" "$POD/.next/cache"',
    `exec "${process.execPath}" scripts/start.js`,
  ].join('\n');
  const server = await startServerProcess({
    command: 'unshare',
    args: ['-m', 'sh', '-c', script],
    cwd: copy,
    env: {
      POD: copy,
      POD_CACHE: cache,
      HOST: '127.0.0.1',
      MANAGEMENT_PORT: '0',
      // On a loaded test machine, the event loop, not the store, can be late past the default 100 ms:
      // a store read timed out is a miss, and the page is rendered again (what these tests count).
      PAGE_CACHE_TIMEOUT_MS: '2000',
      ...env,
    },
    readyPath: '/api/health/ready',
    timeoutMs: 60_000,
  });
  running.push(server);
  return server;
}

/** When the page was rendered: the example's page says so, to the millisecond. */
async function renderedAt(server: ServerProcess, slug: string): Promise<string> {
  const response = await fetch(`${server.url}/blog/${slug}`);
  expect(response.status).toBe(200);
  const match = /<time>([^<]+)<\/time>/.exec(await response.text());
  if (!match) throw new Error(`no time on /blog/${slug}`);
  return match[1] as string;
}

/** The CMS webhook, through `server`. */
async function revalidate(server: ServerProcess, slug: string): Promise<number> {
  const response = await fetch(`${server.url}/api/revalidate?slug=${slug}`, { method: 'POST' });
  await response.arrayBuffer();
  return response.status;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A revalidation through one instance, then the other asked a second later: is it still the old page? */
async function staleAfterRevalidation(a: ServerProcess, b: ServerProcess, rounds: number): Promise<number> {
  let stale = 0;
  for (let round = 0; round < rounds; round += 1) {
    const [through, other] = round % 2 === 0 ? [a, b] : [b, a];
    // Both have the page in memory before the revalidation.
    await renderedAt(other, 'hello');
    expect(await revalidate(through, 'hello')).toBe(200);
    const fresh = await renderedAt(through, 'hello');
    await sleep(1000);
    if ((await renderedAt(other, 'hello')) !== fresh) stale += 1;
  }
  return stale;
}

/** New fallback pages asked of one instance, then of the other: how many the other rendered again. */
async function renderedTwice(a: ServerProcess, b: ServerProcess, prefix: string, pages: number) {
  let twice = 0;
  for (let page = 0; page < pages; page += 1) {
    const slug = `${prefix}-${page}`;
    if ((await renderedAt(a, slug)) !== (await renderedAt(b, slug))) twice += 1;
  }
  return twice;
}

function storeUpLines(server: ServerProcess): number {
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes('"page_cache.store_up"')).length;
}

function warnings(...servers: ServerProcess[]): string[] {
  return servers.flatMap((server) =>
    server
      .output()
      .split('\n')
      .filter((line) => line.includes(WARNING) || line.includes('EROFS')),
  );
}

beforeAll(async () => {
  // The harness needs mount namespaces (root, or CAP_SYS_ADMIN), as the fault it makes is real.
  const probe = spawnSync('unshare', ['-m', 'true']);
  if (probe.status !== 0)
    throw new Error(`unshare -m failed (${probe.stderr}): this test mounts the build read-only, as root`);
  built = productDir(PRODUCT);
  otherBuild = productDir(NEXT_DEPLOYMENT);
  store = await startStoreServer(await freePort());
});

afterAll(async () => {
  await Promise.allSettled(running.map((server) => server.stop()));
  await store?.stop();
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("Next's own page cache on the same harness", () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    a = await startPod(copyOf(built), NEXTS_OWN_CACHE);
    b = await startPod(copyOf(built), NEXTS_OWN_CACHE);
  });
  afterAll(async () => {
    await Promise.allSettled([a.stop(), b.stop()]);
  });

  it('leaves the other instance serving the old page, renders each new page on each, and warns on every regeneration', async () => {
    expect(await staleAfterRevalidation(a, b, 2)).toBe(2);
    expect(await renderedTwice(a, b, 'own-cache', 2)).toBe(2);
    await until(() => warnings(a, b).length > 0, 10_000, 100);
  });
});

describe('the shell’s page cache, with a store', () => {
  let a: ServerProcess;
  let b: ServerProcess;
  beforeAll(async () => {
    a = await startPod(copyOf(built), { PAGE_CACHE_URL: store.url });
    b = await startPod(copyOf(built), { PAGE_CACHE_URL: store.url });
  });

  it('serves what a revalidation through either instance made, on the other a second later: 0 of 10 stale', async () => {
    expect(await staleAfterRevalidation(a, b, 10)).toBe(0);
  });

  it('renders a new fallback page once, whichever instance is asked next: 0 of 5 rendered twice', async () => {
    expect(await renderedTwice(a, b, 'fallback', 5)).toBe(0);
  });

  it('writes nothing into the read-only build, and says nothing of it', () => {
    expect(warnings(a, b)).toEqual([]);
  });

  it('never mixes builds: another build on the same store renders its own pages', async () => {
    const other = await startPod(copyOf(otherBuild), { PAGE_CACHE_URL: store.url });
    const mine = await fetch(`${a.url}/blog/shared-post`).then((response) => response.text());
    const theirs = await fetch(`${other.url}/blog/shared-post`).then((response) => response.text());
    // Each page carries its build: the other's is a deploymentId build (`?dpl=deploy-two` on its files).
    expect(theirs).toContain('dpl=deploy-two');
    expect(mine).not.toContain('dpl=deploy-two');
    expect(/<time>([^<]+)<\/time>/.exec(theirs)?.[1]).not.toBe(/<time>([^<]+)<\/time>/.exec(mine)?.[1]);
    // And a revalidation of this build does not reach the other one's page.
    const before = await renderedAt(other, 'shared-post');
    expect(await revalidate(a, 'shared-post')).toBe(200);
    await sleep(1000);
    expect(await renderedAt(other, 'shared-post')).toBe(before);
    // Stopped, it closes its connections: no line says the store went away.
    expect(await other.stop()).toBe(0);
    expect(other.output()).not.toContain('"page_cache.store_down"');
  });

  it('answers every page and the webhook with the store killed, waiting on nothing: 0 of 100 other than 200', async () => {
    await store.kill();
    // Every instance finds out at its next command or ping; until then a command fails fast.
    const statuses: number[] = [];
    const paths = ['/blog/hello', '/blog/fallback-1', '/blog/killed-new', '/about', '/'];
    for (let request = 0; request < 100; request += 1) {
      const server = request % 2 === 0 ? a : b;
      const response = await fetch(`${server.url}${paths[request % paths.length]}`, {
        signal: AbortSignal.timeout(5000),
      });
      await response.arrayBuffer();
      statuses.push(response.status);
    }
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expect(await revalidate(a, 'hello')).toBe(200);
    // Readiness holds; the store is a non-critical check that warns.
    const health = await fetch(`${a.url}/api/health`).then((response) => response.json());
    expect(health.status).toBe('warn');
    expect(health.checks['page-cache:store'][0]).toMatchObject({ status: 'warn' });
    expect((await fetch(`${a.url}/api/health/ready`)).status).toBe(200);
    // One line when it went, not one a request.
    for (const server of [a, b])
      expect(
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('"page_cache.store_down"')),
      ).toHaveLength(1);
  });

  it('is consistent again within 5 s of the store starting again, empty', async () => {
    await store.restart();
    const started = performance.now();
    await until(
      async () =>
        // Up once at the start, and once now.
        [a, b].every((server) => storeUpLines(server) === 2) &&
        (await renderedAt(a, 'hello')) === (await renderedAt(b, 'hello')),
      5000,
      100,
    );
    const backAfterMs = performance.now() - started;
    console.log(`[page-cache] consistent again ${Math.round(backAfterMs)} ms after the store started`);
    expect(await staleAfterRevalidation(a, b, 2)).toBe(0);
    expect(warnings(a, b)).toEqual([]);
  });
});

describe('the shell’s page cache, without a store', () => {
  it('keeps a regenerated page in memory and the writable cache folder, never in the build, and serves it after a restart', async () => {
    const copy = copyOf(built);
    const cache = emptyDir();
    let pod = await startPod(copy, {}, cache);
    const before = await renderedAt(pod, 'hello');
    expect(await revalidate(pod, 'hello')).toBe(200);
    const fresh = await renderedAt(pod, 'hello');
    expect(fresh).not.toBe(before);
    // Laid out in the emptyDir as Next lays out its own pages, under the build's name.
    const build = readFileSync(path.join(copy, '.next/BUILD_ID'), 'utf8').trim();
    const kept = spawnSync('find', [path.join(cache, 'app-shell-pages', build), '-name', 'hello.html'], {
      encoding: 'utf8',
    }).stdout.trim();
    expect(kept).toMatch(/route-cache\/PAGES\/[0-9a-f]{64}\/\$\/blog\/hello\.html$/);
    expect(readFileSync(kept, 'utf8')).toContain(fresh);
    await pod.stop();
    // The container restarted, its emptyDir kept: the page is the one regenerated before.
    pod = await startPod(copy, {}, cache);
    expect(await renderedAt(pod, 'hello')).toBe(fresh);
    expect(warnings(pod)).toEqual([]);
    await pod.stop();
  });
});
