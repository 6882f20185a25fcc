#!/usr/bin/env node
// `npm run bench:strangers`: what a stranger's input costs, as curves of input size against time.
// 1. A query string of n parameters, on a bare `next start` app (Next alone) and on this app's
//    server (with its query bound). QUERY_MAX_PARAMS in lib/http/query-bound.ts was chosen from
//    this curve (docs/query-bound.md).
// 2. A junk envelope of n bytes posted to the tunnel (docs/tunnel.md): time to the refusal, and
//    the refusal's size.
// 3. Made-up build file names asked of an instance in a fleet (lib/fleet/, docs/fleet.md), whose
//    peer serves another build, so every name is one it asks that peer for: time per request
//    against how many distinct names and how long each is, beside a plain 404 (a made-up page
//    path) on the same server, and the live heap each leaves behind.
// 4. An Accept-Language of n ranges (docs/error-screens.md): time to "Page not found" on bare Next
//    and on this app (which negotiates the screen's language from it), and to the client-exception
//    words for a `languages` list of n entries; and, in this process, what negotiator itself costs
//    for such a header read whole against as far as the server reads it (ACCEPT_HEADER_MAX_CHARS).
// Loopback only; each request is timed on a fresh connection, median of REPEATS. Results in
// bench/results/stranger-cost.json.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { ROOT, buildApp, buildBareApp } = require('./lib/builds.js');
const { startApp, startAppInFleet, startBare } = require('./lib/servers.js');

// A DSN nothing listens on: the tunnel is mounted, and junk is refused before anything is sent.
const BENCH_DSN = 'http://publickey@127.0.0.1:9/1';
const COUNTS = [0, 64, 128, 256, 512, 1000, 2000, 3000, 4000, 7500];
const REPEATS = Number(process.env.BENCH_REPEATS) || 3;
const SHAPES = {
  /** Repeated bare keys: the cheapest bytes per parameter. @param {number} n */
  'a&': (n) => 'a&'.repeat(n),
  /** Repeated key=value pairs. @param {number} n */
  'a=1&': (n) => 'a=1&'.repeat(n),
};

/**
 * One request on a fresh connection; resolves with the status, the answer's size and the time to
 * the whole answer.
 * @param {number} port @param {string} target @param {string} [body]  a POST's body
 * @param {string} [headers]  more header lines, each ending in CRLF
 * @returns {Promise<{ status: number, ms: number, bytes: number }>}
 */
function timedRequest(port, target, body, headers = '') {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      socket.destroy();
      resolve({
        status: Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0),
        ms: performance.now() - started,
        bytes: Buffer.byteLength(text, 'latin1'),
      });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', done);
    socket.on('error', done);
    socket.setTimeout(30_000, done);
    const head = body === undefined ? `GET ${target} HTTP/1.1` : `POST ${target} HTTP/1.1`;
    const length = body === undefined ? '' : `Content-Length: ${Buffer.byteLength(body)}\r\n`;
    socket.write(`${head}\r\nHost: 127.0.0.1\r\n${headers}${length}Connection: close\r\n\r\n${body ?? ''}`);
  });
}

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * @param {number} port @param {string} pathname
 * @returns {Promise<Record<string, { n: number, ms: number, status: number }[]>>}
 */
async function curve(port, pathname) {
  /** @type {Record<string, { n: number, ms: number, status: number }[]>} */
  const out = {};
  for (const [shape, make] of Object.entries(SHAPES)) {
    out[shape] = [];
    for (const n of COUNTS) {
      const target = `${pathname}?${make(n)}`;
      if (Buffer.byteLength(target) > 16_000) continue; // past Node's 16 KiB header limit
      const runs = [];
      for (let i = 0; i < REPEATS; i += 1) runs.push(await timedRequest(port, target));
      out[shape].push({ n, ms: median(runs.map((r) => r.ms)), status: runs[0].status });
    }
  }
  return out;
}

const ENVELOPE_KIB = [16, 64, 256, 512, 1023];
/** @type {Record<string, (dsn: string, bytes: number) => string>} */
const JUNK = {
  'lines after `{}`': (_dsn, bytes) => `{}\n${'1\n'.repeat(Math.floor((bytes - 3) / 2))}`,
  'lines after our DSN': (dsn, bytes) => {
    const header = `{"dsn":"${dsn}"}\n`;
    return header + '1\n'.repeat(Math.floor((bytes - header.length) / 2));
  },
  'empty event items': (dsn, bytes) => {
    const header = `{"dsn":"${dsn}"}\n`;
    return header + '{"type":"event"}\n{}\n'.repeat(Math.floor((bytes - header.length) / 20));
  },
};

/**
 * @param {number} port @param {string} tunnelPath @param {string} dsn
 * @returns {Promise<Record<string, { kib: number, ms: number, status: number, bytes: number }[]>>}
 */
async function tunnelCurve(port, tunnelPath, dsn) {
  /** @type {Record<string, { kib: number, ms: number, status: number, bytes: number }[]>} */
  const out = {};
  for (const [shape, make] of Object.entries(JUNK)) {
    out[shape] = [];
    for (const kib of ENVELOPE_KIB) {
      const body = make(dsn, kib * 1024);
      const runs = [];
      for (let i = 0; i < REPEATS; i += 1) runs.push(await timedRequest(port, tunnelPath, body));
      out[shape].push({
        kib,
        ms: median(runs.map((r) => r.ms)),
        status: runs[0]?.status ?? 0,
        bytes: Math.max(...runs.map((r) => r.bytes)),
      });
    }
  }
  return out;
}

const FLEET_COUNTS = [1, 10, 100, 1000];
const FLEET_LENGTHS = [16, 256, 1000, 4000, 8000];
/** The issue's bound: a made-up chunk name costs at most this many plain 404s. */
const FLEET_MAX_RATIO = 10;

/** A seeded stream of hex digits, so every run asks the same names. */
function hexStream(seed = 26) {
  let state = seed;
  return (/** @type {number} */ length) => {
    let out = '';
    for (let i = 0; i < length; i += 1) {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      out += (state % 16).toString(16);
    }
    return out;
  };
}

/**
 * The live heap of a server started with bench's memory probe, after a full GC.
 * @param {import('../scripts/lib/server-process.js').ServerProcess} server @param {string} file
 */
async function heapMiB(server, file) {
  const read = () => (fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : { reading: 0 });
  const before = read().reading;
  server.child.kill('SIGUSR2');
  for (let i = 0; i < 500; i += 1) {
    const reading = read();
    if (reading.reading > before) return reading.heapUsed / 2 ** 20;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('no memory reading');
}

/** @param {number} port @param {string[]} targets  median ms of one request each, in turn */
async function medianOf(port, targets) {
  const times = [];
  /** @type {Set<number>} */
  const statuses = new Set();
  for (const target of targets) {
    const { ms, status } = await timedRequest(port, target);
    times.push(ms);
    statuses.add(status);
  }
  return { ms: median(times), statuses: [...statuses] };
}

async function fleetCurves() {
  const peerDist = '.next-strangers-peer';
  if (!fs.existsSync(path.join(ROOT, peerDist, 'BUILD_ID'))) buildApp(peerDist);
  const memoryFile = path.join(require('node:os').tmpdir(), `stranger-cost-memory-${process.pid}.json`);
  const probe = path.join(ROOT, '__tests__/support/memory-probe.cjs');
  const app = await startAppInFleet('.next', peerDist, {
    NODE_OPTIONS: `--require ${probe}`,
    APP_SHELL_TEST_MEMORY_FILE: memoryFile,
    LOG_LEVEL: 'warn',
  });
  const hex = hexStream();
  /** @type {{ n: number, chunkMs: number, repeatMs: number, plainMs: number, ratio: number, statuses: number[] }[]} */
  const byCount = [];
  /** @type {{ length: number, chunkMs: number, plainMs: number, ratio: number, statuses: number[] }[]} */
  const byLength = [];
  /** @type {Record<string, number>} */
  const heap = {};
  try {
    // Warm: the first requests of a fresh process pay for loading code.
    await medianOf(
      app.port,
      Array.from({ length: 50 }, () => `/_next/static/chunks/${hex(16)}.js`),
    );
    await medianOf(
      app.port,
      Array.from({ length: 50 }, () => `/${hex(16)}`),
    );
    heap.start = await heapMiB(app, memoryFile);
    for (const n of FLEET_COUNTS) {
      const names = Array.from({ length: n }, () => `/_next/static/chunks/${hex(16)}.js`);
      const chunk = await medianOf(app.port, names);
      const repeat = await medianOf(app.port, names);
      const plain = await medianOf(
        app.port,
        Array.from({ length: n }, () => `/${hex(16)}`),
      );
      byCount.push({
        n,
        chunkMs: chunk.ms,
        repeatMs: repeat.ms,
        plainMs: plain.ms,
        ratio: chunk.ms / plain.ms,
        statuses: [...new Set([...chunk.statuses, ...repeat.statuses])],
      });
    }
    heap.afterCounts = await heapMiB(app, memoryFile);
    for (const length of FLEET_LENGTHS) {
      const names = Array.from({ length: REPEATS * 3 }, () => `/_next/static/chunks/${hex(length)}.js`);
      const chunk = await medianOf(app.port, names);
      const plain = await medianOf(
        app.port,
        Array.from({ length: REPEATS * 3 }, () => `/${hex(length)}`),
      );
      byLength.push({
        length,
        chunkMs: chunk.ms,
        plainMs: plain.ms,
        ratio: chunk.ms / plain.ms,
        statuses: chunk.statuses,
      });
    }
    // Past the misses it remembers (4096), then as many made-up page paths: what the fleet's cache
    // holds is the difference between the two.
    const before = await heapMiB(app, memoryFile);
    for (let i = 0; i < 5000; i += 1) await timedRequest(app.port, `/_next/static/chunks/${hex(16)}.js`);
    heap.fiveThousandChunkNames = (await heapMiB(app, memoryFile)) - before;
    const middle = await heapMiB(app, memoryFile);
    for (let i = 0; i < 5000; i += 1) await timedRequest(app.port, `/${hex(16)}`);
    heap.fiveThousandPagePaths = (await heapMiB(app, memoryFile)) - middle;
  } finally {
    await app.stop();
    fs.rmSync(memoryFile, { force: true });
  }
  return { byCount, byLength, heap };
}

const RANGE_COUNTS = [0, 1, 8, 64, 256, 1000, 1400];
/** n ranges no screen has words in, then French: a hostile header, or a very long honest one. @param {number} n */
const acceptLanguage = (n) =>
  [...Array.from({ length: n }, (_, i) => `x${i}-yy;q=0.5`), 'fr;q=0.4'].join(',');

/**
 * Time to the answer against the ranges in Accept-Language (and in the words' `languages` list).
 * @param {number} port @param {boolean} [words]  also the client-exception words
 */
async function languageCurve(port, words = false) {
  /** @type {Record<string, { n: number, ms: number, status: number, bytes: number }[]>} */
  const out = { 'a missing page': [], ...(words ? { 'the client-exception words': [] } : {}) };
  for (const n of RANGE_COUNTS) {
    const header = acceptLanguage(n);
    const runs = [];
    for (let i = 0; i < REPEATS; i += 1)
      runs.push(await timedRequest(port, '/nope', undefined, `Accept-Language: ${header}\r\n`));
    out['a missing page'].push({
      n,
      ms: median(runs.map((r) => r.ms)),
      status: runs[0].status,
      bytes: runs[0].bytes,
    });
    if (!words || Buffer.byteLength(header) > 15_000) continue;
    const asked = [];
    for (let i = 0; i < REPEATS; i += 1)
      asked.push(
        await timedRequest(port, `/_next/app-shell/words?languages=${header.replace(/;q=0\.\d/g, '')}`),
      );
    out['the client-exception words'].push({
      n,
      ms: median(asked.map((r) => r.ms)),
      status: asked[0].status,
      bytes: asked[0].bytes,
    });
  }
  return out;
}

/** negotiator in this process: a header of n ranges read whole, and as far as the server reads it. */
function negotiatorCurve() {
  const Negotiator = require('negotiator');
  const { negotiateLanguage } = require(path.join(ROOT, 'dist/lib/language/negotiate.js'));
  const offered = ['en', 'fr', 'de', 'es', 'ar'];
  /** @param {() => unknown} work */
  const microseconds = (work) => {
    const runs = [];
    for (let i = 0; i < 5; i += 1) {
      const started = performance.now();
      for (let j = 0; j < 20; j += 1) work();
      runs.push(((performance.now() - started) / 20) * 1000);
    }
    return median(runs);
  };
  return RANGE_COUNTS.map((n) => {
    const header = acceptLanguage(n);
    return {
      n,
      wholeUs: microseconds(() =>
        new Negotiator({ headers: { 'accept-language': header } }).language(offered),
      ),
      boundedUs: microseconds(() => negotiateLanguage(header, offered, 'en')),
      whole: new Negotiator({ headers: { 'accept-language': header } }).language(offered) ?? 'en',
      bounded: negotiateLanguage(header, offered, 'en'),
    };
  });
}

async function main() {
  const distDir = '.next';
  if (!fs.existsSync(path.join(ROOT, distDir, 'BUILD_ID'))) buildApp(distDir);
  const bareDir = buildBareApp();
  /** @type {Record<string, Record<string, { n: number, ms: number, status: number }[]>>} */
  const results = {};
  /** @type {Record<string, Record<string, { n: number, ms: number, status: number, bytes: number }[]>>} */
  const languages = {};
  const bare = await startBare(bareDir);
  try {
    results['next start: API route'] = await curve(bare.port, '/api/empty');
    results['next start: a missing page'] = await curve(bare.port, '/nope');
    languages['next start'] = await languageCurve(bare.port);
  } finally {
    await bare.stop();
  }
  const app = await startApp(distDir);
  try {
    results['this app: /api/health/live'] = await curve(app.port, '/api/health/live');
    results['this app: a missing API path'] = await curve(app.port, '/api/nope');
    results['this app: a missing page'] = await curve(app.port, '/nope');
    languages['this app'] = await languageCurve(app.port, true);
  } finally {
    await app.stop();
  }
  const dsnDist = '.next-dsn';
  if (!fs.existsSync(path.join(ROOT, dsnDist, 'BUILD_ID'))) buildApp(dsnDist, { SENTRY_DSN: BENCH_DSN });
  const { config } = JSON.parse(
    fs.readFileSync(path.join(ROOT, dsnDist, 'required-server-files.json'), 'utf8'),
  );
  const withDsn = await startApp(dsnDist);
  /** @type {Record<string, { kib: number, ms: number, status: number, bytes: number }[]>} */
  let tunnel;
  try {
    tunnel = await tunnelCurve(withDsn.port, config.env.APP_SENTRY_TUNNEL_PATH, config.env.APP_SENTRY_DSN);
  } finally {
    await withDsn.stop();
  }

  const fleet = await fleetCurves();
  const negotiator = negotiatorCurve();

  const lines = ['| server: path | shape | ' + COUNTS.map((n) => `n=${n}`).join(' | ') + ' |'];
  lines.push(`|${'---|'.repeat(COUNTS.length + 2)}`);
  for (const [name, shapes] of Object.entries(results)) {
    for (const [shape, points] of Object.entries(shapes)) {
      const cells = COUNTS.map((n) => {
        const point = points.find((p) => p.n === n);
        return point ? `${point.ms.toFixed(1)} ms (${point.status})` : '—';
      });
      lines.push(`| ${name} | \`${shape}\` | ${cells.join(' | ')} |`);
    }
  }
  lines.push('', '| tunnel: junk envelope | ' + ENVELOPE_KIB.map((k) => `${k} KiB`).join(' | ') + ' |');
  lines.push(`|${'---|'.repeat(ENVELOPE_KIB.length + 1)}`);
  for (const [shape, points] of Object.entries(tunnel)) {
    const cells = points.map((p) => `${p.ms.toFixed(1)} ms (${p.status}, ${p.bytes} B)`);
    lines.push(`| ${shape} | ${cells.join(' | ')} |`);
  }
  lines.push(
    '',
    `| fleet: distinct made-up chunk names | ${FLEET_COUNTS.map((n) => `n=${n}`).join(' | ')} |`,
  );
  lines.push(`|${'---|'.repeat(FLEET_COUNTS.length + 1)}`);
  lines.push(
    `| each asked once (peer asked) | ${fleet.byCount.map((p) => `${p.chunkMs.toFixed(2)} ms`).join(' | ')} |`,
  );
  lines.push(
    `| the same again (remembered) | ${fleet.byCount.map((p) => `${p.repeatMs.toFixed(2)} ms`).join(' | ')} |`,
  );
  lines.push(
    `| a plain 404 (made-up page path) | ${fleet.byCount.map((p) => `${p.plainMs.toFixed(2)} ms`).join(' | ')} |`,
  );
  lines.push(
    `| ratio, target ≤ ${FLEET_MAX_RATIO} | ${fleet.byCount.map((p) => `${p.ratio.toFixed(2)}x${p.ratio <= FLEET_MAX_RATIO ? '' : ' (over)'}`).join(' | ')} |`,
  );
  lines.push('', `| fleet: name length | ${FLEET_LENGTHS.map((n) => `${n} chars`).join(' | ')} |`);
  lines.push(`|${'---|'.repeat(FLEET_LENGTHS.length + 1)}`);
  lines.push(
    `| made-up chunk name | ${fleet.byLength.map((p) => `${p.chunkMs.toFixed(2)} ms (${p.statuses.join(',')})`).join(' | ')} |`,
  );
  lines.push(
    `| made-up page path | ${fleet.byLength.map((p) => `${p.plainMs.toFixed(2)} ms`).join(' | ')} |`,
  );
  lines.push(`| ratio | ${fleet.byLength.map((p) => `${p.ratio.toFixed(2)}x`).join(' | ')} |`);
  lines.push(
    '',
    `Live heap: ${fleet.heap.start.toFixed(1)} MiB warm, ${fleet.heap.afterCounts.toFixed(1)} MiB after the ${FLEET_COUNTS.reduce((a, b) => a + b, 0)} names above; +${fleet.heap.fiveThousandChunkNames.toFixed(2)} MiB for 5,000 more made-up chunk names against +${fleet.heap.fiveThousandPagePaths.toFixed(2)} MiB for 5,000 made-up page paths.`,
  );
  lines.push('', `| Accept-Language ranges | ${RANGE_COUNTS.map((n) => `n=${n}`).join(' | ')} |`);
  lines.push(`|${'---|'.repeat(RANGE_COUNTS.length + 1)}`);
  for (const [server, kinds] of Object.entries(languages))
    for (const [kind, points] of Object.entries(kinds))
      lines.push(
        `| ${server}: ${kind} | ${points.map((p) => `${p.ms.toFixed(2)} ms (${p.status}, ${p.bytes} B)`).join(' | ')} |`,
      );
  lines.push(
    `| negotiator, the header whole | ${negotiator.map((p) => `${p.wholeUs.toFixed(1)} µs (${p.whole})`).join(' | ')} |`,
  );
  lines.push(
    `| negotiator, as far as the server reads | ${negotiator.map((p) => `${p.boundedUs.toFixed(1)} µs (${p.bounded})`).join(' | ')} |`,
  );
  const table = lines.join('\n');
  process.stdout.write(`${table}\n`);
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/stranger-cost.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, repeats: REPEATS, query: results, tunnel, fleet, languages, negotiator }, null, 2)}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
