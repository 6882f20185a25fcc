// `npm run bench:product-pages`: what the shell costs a product's pages (issue 64: a server-rendered
// and a statically generated page at ≥ 0.95× bare `next start` on the same build with every default
// on; the 404 with the request log and metrics on at ≥ 0.8× of both off). One copy of the shell with
// two product pages added (bench/product/products.tsx as pages/products.tsx: getServerSideProps, a
// list of 30; bench/page-cache/post.tsx as pages/post/[slug].tsx: getStaticProps, revalidate 3600,
// served from the cache), built once as `npm run build` builds it and copied, so the servers run the
// very same build: the shell's `npm start` with every default (request log to a file as a container
// runtime takes it, metrics on their own port), bare `next start`, and the shell with the request log
// and metrics off (LOG_LEVEL=warn, MANAGEMENT_PORT=0) for the 404's row. Every server on core 0, the
// load on core 1; each kind runs as BENCH_PROCESSES processes; BENCH_ROUNDS rounds, each loading
// one process of each of a row's two kinds in turn (round r: process r mod BENCH_PROCESSES), the order
// rotating; a row's ratio is the median of its per-round ratios, beside the CPU each server used per
// answered request (/proc). Each page is checked before and after every round (its status; the
// static page still the same render, a HIT); another answer fails the run. Loopback only.
//   BENCH_PROCESSES (4), BENCH_ROUNDS (8), BENCH_SECONDS (5), BENCH_CONNECTIONS (50), BENCH_ROWS
//   (ssr,isr,404,404-bare: some rows alone), BENCH_PROFILE=1 (then a CPU profile of the shell and of
//   bare Next on each page, summarised by where the time goes; `only`: the profiles alone),
//   BENCH_PROFILE_SECONDS (10, each profile's load); BENCH_JSON_OUT (default
//   bench/results/product-pages.json). Needs Linux, taskset and two cores.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, WORK, NEXT_BIN } = require('./lib/builds.js');
const { load } = require('./lib/load.js');
const { median } = require('./lib/median.js');
const { probe } = require('./lib/probe.js');
const { buildProductCopies } = require('./lib/product-copies.js');
const { SERVER_CPU, LOAD_CPU, runPinned, cpuMicros, pin } = require('./lib/pinning.js');
const { freePort, startServerProcess } = require('../scripts/lib/server-process.js');
const { summariseCpu } = require('./lib/profile-summary.js');

const ROUNDS = Number(process.env.BENCH_ROUNDS) || 8;
const SECONDS = Number(process.env.BENCH_SECONDS) || 5;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS) || 50;
/**
 * Processes of each kind: two processes of one build differ here by 10–30 % for their whole life
 * (where the JIT settled, where the host put them), so round r loads process r mod BENCH_PROCESSES of
 * each of its row's two kinds, and a row's median is over processes as well as rounds.
 */
const PROCESSES = Number(process.env.BENCH_PROCESSES) || 4;
const JSON_OUT = process.env.BENCH_JSON_OUT || path.join(ROOT, 'bench/results/product-pages.json');
/** BENCH_ROWS=ssr,isr,404,404-bare: those rows alone (every row by default). */
const ONLY_ROWS = process.env.BENCH_ROWS?.split(',');
/** '1': the figures, then the profiles; 'only': the profiles alone. */
const PROFILE = process.env.BENCH_PROFILE === '1' || process.env.BENCH_PROFILE === 'only';
const PROFILE_SECONDS = Number(process.env.BENCH_PROFILE_SECONDS) || 10;
const PROFILE_WINDOW = path.join(__dirname, 'lib/profile-window.js');

/** @param {string} message */
function progress(message) {
  process.stderr.write(`[product-pages] ${message}\n`);
}

runPinned(__filename, 'bench:product-pages', {
  envName: 'BENCH_PRODUCT_DIRS',
  before: () => {
    progress('building two product pages on the shell (about two minutes)');
    return buildProductCopies(
      'app-shell-bench-product-pages',
      { 'products.tsx': 'product/products.tsx', 'post/[slug].tsx': 'page-cache/post.tsx' },
      ['shell', 'shellQuiet', 'bare'],
    );
  },
});

/**
 * @typedef {{ path: string, status: number, cached?: boolean }} Page
 * @typedef {{ name: string, key: string, base: string, pid: number | undefined, managementPort?: number,
 *   renderedAt: Map<string, string>, stop: () => Promise<unknown> }} Server
 * @typedef {{ key: string, name: string, page: Page, server: Server[], baseline: Server[] }} Row
 */

/** @type {Record<'ssr' | 'isr' | 'missing', Page>} */
const PAGES = {
  ssr: { path: '/products?page=2', status: 200 },
  isr: { path: '/post/hello', status: 200, cached: true },
  missing: { path: '/no-such-page', status: 404 },
};

/** Where a server's log lines go. @param {string} key */
const logOf = (key) => path.join(WORK, `product-pages-${key}.log`);

/**
 * The page as the row expects it; a cached page is asked again while the server warms, and its render
 * time is kept, to be the same after every round.
 * @param {Server} server @param {Page} page
 */
async function check(server, page) {
  let last;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    last = await probe(`${server.base}${page.path}`);
    const whole = last.status === page.status && (!page.cached || (last.cache === 'HIT' && last.renderedAt));
    if (whole) {
      if (!page.cached) return;
      const before = server.renderedAt.get(page.path);
      if (before === undefined) server.renderedAt.set(page.path, last.renderedAt);
      else if (before !== last.renderedAt)
        throw new Error(
          `${server.name}: ${page.path} was rendered again (${before}, then ${last.renderedAt})`,
        );
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${server.name}: ${page.path} answered ${JSON.stringify(last)}`);
}

/**
 * @param {string} name @param {string} key @param {string} dir @param {'shell' | 'bare'} kind
 * @param {Record<string, string>} env @returns {Promise<Server>}
 */
async function start(name, key, dir, kind, env = {}) {
  fs.mkdirSync(WORK, { recursive: true });
  const managementPort = kind === 'shell' && env.MANAGEMENT_PORT !== '0' ? await freePort() : undefined;
  const server = await startServerProcess({
    command: process.execPath,
    args: kind === 'shell' ? ['scripts/start.js'] : [NEXT_BIN, 'start', '-H', '127.0.0.1', '-p', '{port}'],
    cwd: dir,
    env: {
      NODE_ENV: 'production',
      NEXT_DIST_DIR: '.next',
      ...(kind === 'shell' ? { HOST: '127.0.0.1' } : {}),
      ...(managementPort ? { MANAGEMENT_PORT: String(managementPort) } : {}),
      ...env,
    },
    readyPath: kind === 'shell' ? '/api/health/ready' : '/post/hello',
    stdoutFile: logOf(key),
  });
  try {
    pin(server.child.pid);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return {
    name,
    key,
    base: server.url,
    pid: server.child.pid,
    managementPort,
    renderedAt: new Map(),
    stop: server.stop,
  };
}

/** @param {Server} server @param {Page} page @param {number} seconds */
async function round(server, page, seconds) {
  const before = cpuMicros(server.pid);
  const result = await load({ url: `${server.base}${page.path}`, connections: CONNECTIONS, seconds });
  const used = cpuMicros(server.pid) - before;
  const other = Object.entries(result.codes)
    .filter(([code]) => code !== String(page.status))
    .reduce((sum, [, count]) => sum + count, 0);
  await check(server, page);
  return {
    rps: result.rps,
    requests: result.requests,
    cpu: used / result.requests,
    other,
    errors: result.errors,
  };
}

/**
 * Where each page's CPU goes, in the shell and in bare Next: a server of each under V8's profiler
 * (./lib/profile-window.js) for PROFILE_SECONDS of the page's load after a warm-up, summarised per
 * answered request by whose code ran (./lib/profile-summary.js). The shell's share is what its
 * profile has that bare's has not: its own modules (by the stage that led there) and what they make
 * Node do.
 * @param {Record<string, string>} dirs
 */
async function profile(dirs) {
  /** @type {Record<string, unknown>} */
  const profiles = {};
  for (const [key, page] of /** @type {const} */ ([
    ['ssr', PAGES.ssr],
    ['isr', PAGES.isr],
    ['missing', PAGES.missing],
  ])) {
    for (const kind of /** @type {const} */ (['shell', 'bare'])) {
      const file = path.join(WORK, `product-pages-${key}-${kind}.cpuprofile`);
      fs.rmSync(file, { force: true });
      fs.rmSync(`${file}.done`, { force: true });
      const server = await start(
        `${kind} (profiled)`,
        `profile-${kind}`,
        kind === 'shell' ? dirs.shell : dirs.bare,
        kind,
        {
          NODE_OPTIONS: `--require ${PROFILE_WINDOW}`,
          PROFILE_OUT: file,
        },
      );
      try {
        await check(server, page);
        await round(server, page, 3);
        process.kill(/** @type {number} */ (server.pid), 'SIGUSR2');
        const { requests } = await round(server, page, PROFILE_SECONDS);
        process.kill(/** @type {number} */ (server.pid), 'SIGUSR2');
        const deadline = Date.now() + 30_000;
        while (!fs.existsSync(`${file}.done`)) {
          if (Date.now() > deadline) throw new Error(`no profile from ${server.name} within 30 s`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const summary = summariseCpu(file, requests);
        profiles[`${page.path} ${kind}`] = summary;
        const shown = (/** @type {[string, number][]} */ list) =>
          list
            .map(([name, micros]) => `    ${(micros / requests).toFixed(1).padStart(7)} µs  ${name}`)
            .join('\n');
        process.stdout.write(
          `${page.path}, ${kind}: ${summary.microsPerRequest.toFixed(0)} µs a request in the profile\n` +
            `  by whose code ran:\n${shown(summary.byOwner)}\n` +
            (kind === 'shell' ? `  by the shell's module that led there:\n${shown(summary.byStage)}\n` : ''),
        );
      } finally {
        await server.stop();
      }
    }
  }
  return profiles;
}

async function main() {
  for (const name of Object.keys(process.env))
    if (name.startsWith('PAGE_CACHE_') || name === 'LOG_LEVEL' || name === 'MANAGEMENT_PORT')
      delete process.env[name];
  const dirs = JSON.parse(process.env.BENCH_PRODUCT_DIRS ?? '{}');
  if (process.env.BENCH_PROFILE === 'only') {
    fs.mkdirSync(path.dirname(JSON_OUT), { recursive: true });
    fs.writeFileSync(JSON_OUT, `${JSON.stringify({ profiles: await profile(dirs) }, null, 2)}\n`);
    return;
  }
  /** @type {Server[]} */
  const servers = [];
  try {
    /** @type {Server[]} */
    const bare = [];
    /** @type {Server[]} */
    const shell = [];
    /** @type {Server[]} */
    const quiet = [];
    const quietNeeded = ONLY_ROWS === undefined || ONLY_ROWS.includes('404');
    for (let i = 1; i <= PROCESSES; i += 1) {
      bare.push(await start(`bare next start ${i}`, `bare-${i}`, dirs.bare, 'bare'));
      shell.push(await start(`the shell, every default ${i}`, `shell-${i}`, dirs.shell, 'shell'));
      if (quietNeeded)
        quiet.push(
          await start(`the shell, log and metrics off ${i}`, `quiet-${i}`, dirs.shellQuiet, 'shell', {
            LOG_LEVEL: 'warn',
            MANAGEMENT_PORT: '0',
          }),
        );
    }
    servers.push(...bare, ...shell, ...quiet);
    /** @type {Row[]} */
    const rows = [
      {
        key: 'ssr',
        name: 'server-rendered list (getServerSideProps)',
        page: PAGES.ssr,
        server: shell,
        baseline: bare,
      },
      {
        key: 'isr',
        name: 'statically generated page, from the cache',
        page: PAGES.isr,
        server: shell,
        baseline: bare,
      },
      {
        key: '404',
        name: '404, request log and metrics on',
        page: PAGES.missing,
        server: shell,
        baseline: quiet,
      },
      {
        key: '404-bare',
        name: '404, against bare next start',
        page: PAGES.missing,
        server: shell,
        baseline: bare,
      },
    ].filter((row) => ONLY_ROWS === undefined || ONLY_ROWS.includes(row.key));
    for (const row of rows)
      for (const server of [...row.server, ...row.baseline]) await check(server, row.page);
    // One warm-up round of each page on each server, the quiet ones too: the first seconds of a fresh
    // server measure the JIT, and a server that has rendered pages answers a 404 dearer than one that
    // never did (Node's and the pipeline's code grown polymorphic, a larger heap: 38 against 26 µs of
    // CPU, log and metrics on or off alike), so a quiet baseline warmed on the 404 alone flattered
    // itself by a third. Every server answers like one that has served a product for a while.
    for (const page of Object.values(PAGES)) for (const server of servers) await round(server, page, 2);
    /** @typedef {Awaited<ReturnType<typeof round>> & { process: string }} Measured */
    /** @type {Map<Row, { server: Measured[], baseline: Measured[] }>} */
    const measured = new Map(rows.map((row) => [row, { server: [], baseline: [] }]));
    for (let r = 0; r < ROUNDS; r += 1) {
      for (const row of rows) {
        const mine = measured.get(row);
        const order = r % 2 === 0 ? ['server', 'baseline'] : ['baseline', 'server'];
        for (const which of /** @type {('server' | 'baseline')[]} */ (order)) {
          const server = /** @type {Server} */ (row[which][r % PROCESSES]);
          mine?.[which].push({ ...(await round(server, row.page, SECONDS)), process: server.name });
        }
      }
      progress(`round ${r + 1} of ${ROUNDS}`);
    }
    const figures = rows.map((row) => {
      const { server, baseline } = /** @type {NonNullable<ReturnType<typeof measured.get>>} */ (
        measured.get(row)
      );
      const ratios = server.map(
        (each, index) => each.rps / /** @type {{ rps: number }} */ (baseline[index]).rps,
      );
      return {
        name: row.name,
        path: row.page.path,
        server: row.server[0]?.name.replace(/ \d+$/, ''),
        baseline: row.baseline[0]?.name.replace(/ \d+$/, ''),
        rps: median(server.map((each) => each.rps)),
        baselineRps: median(baseline.map((each) => each.rps)),
        ratio: median(ratios),
        ratios,
        pairs: server.map((each, index) => [each.process, baseline[index]?.process]),
        // Each pair of processes's median: how much of the spread is the processes' luck.
        processRatios: Array.from({ length: Math.min(PROCESSES, ratios.length) }, (_, index) =>
          median(ratios.filter((_, r) => r % PROCESSES === index)),
        ),
        cpuMicrosPerRequest: median(server.map((each) => each.cpu)),
        baselineCpuMicrosPerRequest: median(baseline.map((each) => each.cpu)),
        other: [...server, ...baseline].reduce((sum, each) => sum + each.other + each.errors, 0),
      };
    });
    const setup = {
      processes: PROCESSES,
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
    const profiles = PROFILE ? await profile(dirs) : undefined;
    fs.writeFileSync(JSON_OUT, `${JSON.stringify({ setup, rows: figures, profiles }, null, 2)}\n`);
    const lines = [
      `${PROCESSES} processes of each kind, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, servers on core ${SERVER_CPU}, load on core ` +
        `${LOAD_CPU}, ${process.version}, load average ${setup.loadAverage.join(' ')}`,
      `${'row'.padEnd(44)} ${'req/s'.padStart(7)} ${'baseline'.padStart(8)} ${'ratio'.padStart(6)} ${'CPU/request'.padStart(19)}  rounds`,
      ...figures.map(
        (row) =>
          `${row.name.padEnd(44)} ${Math.round(row.rps).toString().padStart(7)} ${Math.round(row.baselineRps).toString().padStart(8)} ` +
          `${`${row.ratio.toFixed(2)}×`.padStart(6)} ${`${Math.round(row.cpuMicrosPerRequest)} / ${Math.round(row.baselineCpuMicrosPerRequest)} µs`.padStart(19)}  ` +
          row.ratios.map((ratio) => ratio.toFixed(2)).join(' '),
      ),
      `written to ${path.relative(process.cwd(), JSON_OUT)}`,
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
    const failed = figures.filter((row) => row.other > 0);
    if (failed.length > 0)
      throw new Error(`other answers: ${failed.map((row) => `${row.name} ${row.other}`).join(', ')}`);
  } finally {
    await Promise.allSettled(servers.map((server) => server.stop()));
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
