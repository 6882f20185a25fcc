#!/usr/bin/env node
// `npm run bench:page-cache`: what a page cache hit costs (issue 63: about what a hit of Next's own
// memory cache costs, ≥ 0.95× its requests a second). One statically generated product page
// (bench/page-cache/post.tsx: getStaticProps, getStaticPaths, fallback 'blocking', revalidate 3600),
// on one build served three ways by the shell's own production server (`npm start`): with Next's own
// cache (the baseline), with the shell's handler and a real redis-server as its store, and with the
// shell's handler and no store (memory and the writable cache folder). Every server is pinned to
// core 0 and this process (the load generator) to core 1; each round loads each server in turn, the
// order rotating, and a row's ratio is the median of its per-round ratios to the baseline of the
// same round, beside the CPU each server used per answered request (/proc). Every page is warmed
// first and checked before and after each round: 200, `x-nextjs-cache: HIT` and the same page (so
// no request of the round rendered it); any answer other than 200 fails the run. Loopback only.
//   BENCH_ROUNDS (6), BENCH_SECONDS (3), BENCH_CONNECTIONS (50); BENCH_JSON_OUT (default
//   bench/results/page-cache.json). Needs Linux, taskset and two cores; redis-server from
//   scripts/ensure-test-tools.sh.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { ROOT, WORK } = require('./lib/builds.js');
const { load } = require('./lib/load.js');
const { median } = require('./lib/median.js');
const { probe } = require('./lib/probe.js');
const { buildPageCacheVariants, NEXT_OWN_CACHE } = require('./lib/page-cache-build.js');
const { freePort, startServerProcess } = require('../scripts/lib/server-process.js');
const { SERVER_CPU, LOAD_CPU, runPinned, cpuMicros, pin } = require('./lib/pinning.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 6;
const SECONDS = Number(process.env.BENCH_SECONDS) || 3;
// Many visitors at once on one page: where concurrent reads of one key meet in Next's response cache.
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS) || 50;
const JSON_OUT = process.env.BENCH_JSON_OUT || path.join(ROOT, 'bench/results/page-cache.json');
const PAGE = '/post/hello';
const REDIS_SERVER_PATH = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

/** @param {string} message */
function progress(message) {
  process.stderr.write(`[page-cache] ${message}\n`);
}

// The build runs on both cores; then this process goes on pinned to the load core.
runPinned(__filename, 'bench:page-cache', {
  envName: 'BENCH_PAGE_CACHE_DIRS',
  before: () => {
    progress('building the product page on the shell (about two minutes)');
    return buildPageCacheVariants();
  },
});

/** Where a server's log lines go. @param {string} key */
const logOf = (key) => path.join(WORK, `page-cache-${key}.log`);

/** @param {number} port @returns {Promise<boolean>} */
function accepts(port) {
  return new Promise((resolve) => {
    const socket = net.createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A redis-server on loopback keeping nothing on disk, as __tests__/support/store-server.ts starts it. */
async function startRedis() {
  if (!fs.existsSync(REDIS_SERVER_PATH))
    throw new Error(`no redis-server at ${REDIS_SERVER_PATH}: run bash scripts/ensure-test-tools.sh`);
  const port = await freePort();
  const child = spawn(
    REDIS_SERVER_PATH,
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    { stdio: 'ignore' },
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  };
  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (Date.now() > deadline || child.exitCode !== null) {
      await stop();
      throw new Error(`redis-server did not listen on ${port} within 10 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}/0`, pid: child.pid, stop };
}

/** The page as a hit: 200, HIT, its time; asked again a few times while the server warms. @param {string} url */
async function hit(url) {
  let last;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    last = await probe(url);
    if (last.status === 200 && last.cache === 'HIT' && last.renderedAt) return last.renderedAt;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} is not a cache hit: ${JSON.stringify(last)}`);
}

/**
 * @typedef {{ name: string, key: string, url: string, pid: number | undefined, renderedAt: string,
 *   stop: () => Promise<unknown> }} Server
 */

/**
 * The shell's production server (`npm start`) in `dir`, on loopback, its log lines to a file.
 * @param {string} name @param {string} key @param {string} dir @param {Record<string, string>} env
 * @returns {Promise<Server>}
 */
async function startShell(name, key, dir, env) {
  // A fresh clone has no bench/.work until a bench makes it.
  fs.mkdirSync(WORK, { recursive: true });
  const server = await startServerProcess({
    command: process.execPath,
    args: ['scripts/start.js'],
    cwd: dir,
    env: { HOST: '127.0.0.1', MANAGEMENT_PORT: '0', NEXT_DIST_DIR: '.next', ...env },
    readyPath: '/api/health/ready',
    stdoutFile: logOf(key),
  });
  const url = `${server.url}${PAGE}`;
  let renderedAt;
  try {
    pin(server.child.pid);
    renderedAt = await hit(url);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { name, key, url, pid: server.child.pid, renderedAt, stop: server.stop };
}

/** @param {Server} server @param {number} seconds */
async function round(server, seconds) {
  const before = cpuMicros(server.pid);
  const result = await load({ url: server.url, connections: CONNECTIONS, seconds });
  const used = cpuMicros(server.pid) - before;
  const non200 = Object.entries(result.codes)
    .filter(([code]) => code !== '200')
    .reduce((sum, [, count]) => sum + count, 0);
  // Still the same page, still a hit: nothing in the round rendered it again.
  const after = await probe(server.url);
  if (after.status !== 200 || after.cache !== 'HIT' || after.renderedAt !== server.renderedAt)
    throw new Error(`${server.name}: after a round the page is ${JSON.stringify(after)}`);
  return {
    rps: result.rps,
    requests: result.requests,
    cpu: used / result.requests,
    non200,
    errors: result.errors,
  };
}

async function main() {
  for (const name of Object.keys(process.env)) if (name.startsWith('PAGE_CACHE_')) delete process.env[name];
  const dirs = JSON.parse(process.env.BENCH_PAGE_CACHE_DIRS ?? '{}');
  /** @type {Server[]} */
  const servers = [];
  const redis = await startRedis();
  try {
    pin(redis.pid);
    servers.push(
      await startShell("Next's own cache", 'next-own', dirs.nextOwn, {
        NODE_OPTIONS: `--require ${NEXT_OWN_CACHE}`,
      }),
    );
    servers.push(
      await startShell("shell's handler, with a store", 'shell-store', dirs.shellStore, {
        PAGE_CACHE_URL: redis.url,
      }),
    );
    servers.push(await startShell("shell's handler, without a store", 'shell-disk', dirs.shellDisk, {}));
    // One warm-up round each: the first seconds of a fresh server measure the JIT.
    for (const server of servers) await round(server, SECONDS);
    /** @type {Map<Server, ReturnType<typeof round> extends Promise<infer R> ? R[] : never>} */
    const rounds = new Map(servers.map((server) => [server, []]));
    for (let r = 0; r < ROUNDS; r += 1) {
      for (let i = 0; i < servers.length; i += 1) {
        const server = /** @type {Server} */ (servers[(i + r) % servers.length]);
        rounds.get(server)?.push(await round(server, SECONDS));
      }
      progress(`round ${r + 1} of ${ROUNDS}`);
    }
    const baseline = /** @type {Awaited<ReturnType<typeof round>>[]} */ (rounds.get(servers[0]));
    const rows = servers.map((server) => {
      const mine = /** @type {Awaited<ReturnType<typeof round>>[]} */ (rounds.get(server));
      const ratios = mine.map(
        (each, index) => each.rps / /** @type {{ rps: number }} */ (baseline[index]).rps,
      );
      return {
        name: server.name,
        rps: median(mine.map((each) => each.rps)),
        ratio: median(ratios),
        ratios,
        cpuMicrosPerRequest: median(mine.map((each) => each.cpu)),
        requests: mine.reduce((sum, each) => sum + each.requests, 0),
        non200: mine.reduce((sum, each) => sum + each.non200, 0),
        errors: mine.reduce((sum, each) => sum + each.errors, 0),
      };
    });
    const setup = {
      page: PAGE,
      rounds: ROUNDS,
      seconds: SECONDS,
      connections: CONNECTIONS,
      serverCore: Number(SERVER_CPU),
      loadCore: Number(LOAD_CPU),
      node: process.version,
      loadAverage: os.loadavg().map((value) => Number(value.toFixed(2))),
      date: new Date().toISOString(),
    };
    fs.mkdirSync(path.dirname(JSON_OUT), { recursive: true });
    fs.writeFileSync(JSON_OUT, `${JSON.stringify({ setup, rows }, null, 2)}\n`);
    const lines = [
      `${PAGE}, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, servers on core ${SERVER_CPU}, ` +
        `load on core ${LOAD_CPU}, ${process.version}, load average ${setup.loadAverage.join(' ')}`,
      `${'row'.padEnd(34)} ${'req/s'.padStart(7)} ${'ratio'.padStart(7)} ${'CPU/request'.padStart(12)}  non-200  rounds`,
      ...rows.map(
        (row) =>
          `${row.name.padEnd(34)} ${Math.round(row.rps).toString().padStart(7)} ${`${row.ratio.toFixed(2)}×`.padStart(7)} ` +
          `${`${Math.round(row.cpuMicrosPerRequest)} µs`.padStart(12)}  ${String(row.non200).padStart(7)}  ` +
          row.ratios.map((ratio) => ratio.toFixed(2)).join(' '),
      ),
      `written to ${path.relative(process.cwd(), JSON_OUT)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const failed = rows.filter((row) => row.non200 > 0 || row.errors > 0);
    if (failed.length > 0)
      throw new Error(
        `answers other than 200: ${failed.map((row) => `${row.name} ${row.non200} (${row.errors} errors)`).join(', ')}`,
      );
  } finally {
    await Promise.allSettled(servers.map((server) => server.stop()));
    await redis.stop();
  }
  // Each server cached as its row says: the shell's handler opened in the shell's rows only (read
  // once the servers are stopped, when their logs are whole).
  for (const server of servers) {
    const opened = fs.readFileSync(logOf(server.key), 'utf8').includes('"event":"page_cache.ready"');
    if (opened !== (server.key !== 'next-own'))
      throw new Error(
        `${server.name}: the shell's handler ${opened ? 'opened' : 'did not open'} (${logOf(server.key)})`,
      );
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
