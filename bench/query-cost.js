#!/usr/bin/env node
// `npm run bench:query`: what a query string of n parameters costs inside Next, as a curve, on a bare
// `next start` app (Next alone) and on this app's server (with its query bound). The bound,
// QUERY_MAX_PARAMS in lib/http/query-bound.ts, was chosen from this curve (docs/query-bound.md).
// Loopback only; each request is timed on a fresh connection, median of REPEATS.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { ROOT, buildApp, buildBareApp } = require('./lib/builds.js');
const { startApp, startBare } = require('./lib/servers.js');

const COUNTS = [0, 64, 128, 256, 512, 1000, 2000, 3000, 4000, 7500];
const REPEATS = Number(process.env.BENCH_REPEATS) || 3;
const SHAPES = {
  /** Repeated bare keys: the cheapest bytes per parameter. @param {number} n */
  'a&': (n) => 'a&'.repeat(n),
  /** Repeated key=value pairs. @param {number} n */
  'a=1&': (n) => 'a=1&'.repeat(n),
};

/**
 * One GET on a fresh connection; resolves with the status and the time to the whole answer.
 * @param {number} port @param {string} target
 * @returns {Promise<{ status: number, ms: number }>}
 */
function timedGet(port, target) {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    const done = () => {
      socket.destroy();
      resolve({
        status: Number(text.match(/^HTTP\/1\.1 (\d{3})/)?.[1] ?? 0),
        ms: performance.now() - started,
      });
    };
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', done);
    socket.on('error', done);
    socket.setTimeout(30_000, done);
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
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
      for (let i = 0; i < REPEATS; i += 1) runs.push(await timedGet(port, target));
      out[shape].push({ n, ms: median(runs.map((r) => r.ms)), status: runs[0].status });
    }
  }
  return out;
}

async function main() {
  const distDir = '.next';
  if (!fs.existsSync(path.join(ROOT, distDir, 'BUILD_ID'))) buildApp(distDir);
  const bareDir = buildBareApp();
  /** @type {Record<string, Record<string, { n: number, ms: number, status: number }[]>>} */
  const results = {};
  const bare = await startBare(bareDir);
  try {
    results['next start: API route'] = await curve(bare.port, '/api/empty');
    results['next start: a missing page'] = await curve(bare.port, '/nope');
  } finally {
    await bare.stop();
  }
  const app = await startApp(distDir);
  try {
    results['this app: /api/health/live'] = await curve(app.port, '/api/health/live');
    results['this app: a missing API path'] = await curve(app.port, '/api/nope');
    results['this app: a missing page'] = await curve(app.port, '/nope');
  } finally {
    await app.stop();
  }

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
  const table = lines.join('\n');
  process.stdout.write(`${table}\n`);
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/query-cost.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, repeats: REPEATS, results }, null, 2)}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
