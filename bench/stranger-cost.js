#!/usr/bin/env node
// `npm run bench:strangers`: what a stranger's input costs, as curves of input size against time.
// 1. A query string of n parameters, on a bare `next start` app (Next alone) and on this app's
//    server (with its query bound). QUERY_MAX_PARAMS in lib/http/query-bound.ts was chosen from
//    this curve (docs/query-bound.md).
// 2. A junk envelope of n bytes posted to the tunnel (docs/tunnel.md): time to the refusal, and
//    the refusal's size.
// Loopback only; each request is timed on a fresh connection, median of REPEATS. Results in
// bench/results/stranger-cost.json.
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { ROOT, buildApp, buildBareApp } = require('./lib/builds.js');
const { startApp, startBare } = require('./lib/servers.js');

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
 * @returns {Promise<{ status: number, ms: number, bytes: number }>}
 */
function timedRequest(port, target, body) {
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
    socket.write(`${head}\r\nHost: 127.0.0.1\r\n${length}Connection: close\r\n\r\n${body ?? ''}`);
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
  const table = lines.join('\n');
  process.stdout.write(`${table}\n`);
  fs.mkdirSync(path.join(ROOT, 'bench/results'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, 'bench/results/stranger-cost.json'),
    `${JSON.stringify({ measuredAt: new Date().toISOString(), node: process.version, repeats: REPEATS, query: results, tunnel }, null, 2)}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
