#!/usr/bin/env node
// Where a health probe's CPU goes: starts a server under V8's CPU profiler, loads one path on
// loopback for a bounded time, stops it, and prints CPU per request split by whose code ran
// (Node's HTTP stack, Next's router, the health route, the app's server, GC). Used to find
// per-probe work that need not happen per probe; the figures are for comparing two servers in one
// run, not targets.
//   node bench/profile-health.js [path] [-- command args…]   (default: this app's npm start)
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startServerProcess } = require('../scripts/lib/server-process.js');
const { load } = require('./lib/load.js');

const ROOT = path.resolve(__dirname, '..');
const SECONDS = Number(process.env.PROFILE_SECONDS) || 8;

/**
 * Whose code a profile node belongs to, by its script URL and name.
 * @param {{ url: string, functionName: string }} frame
 */
function owner({ url, functionName }) {
  if (functionName === '(garbage collector)') return 'GC';
  if (functionName === '(idle)' || functionName === '(program)') return 'idle/program';
  if (/pages\/api\/health|lib\/health|api\/empty/.test(url)) return 'health route (bundle)';
  if (/\/(dist\/)?lib\/(server|http|lifecycle|log|process|config)\//.test(url)) return "app's server";
  if (/next\/dist\/compiled\//.test(url)) return 'Next (compiled deps)';
  if (/next\/dist\//.test(url)) return 'Next (router, API resolver)';
  if (url.startsWith('node:') || url === '') return 'Node (http, net, timers)';
  return 'other';
}

/**
 * @param {string} file
 * @param {number} requests  answered inside the window
 * @param {number} windowMs  the window: this long, ending `tailMs` before the profile ends
 * @param {number} tailMs
 */
function summarise(file, requests, windowMs, tailMs) {
  /** @type {{ nodes: { id: number, callFrame: { url: string, functionName: string } }[], samples: number[], timeDeltas: number[], endTime: number }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  // Sample times, from the end backwards: the window is the measured load, not start-up or warm-up.
  /** @type {number[]} */
  const times = [];
  let at = profile.endTime;
  for (let i = profile.timeDeltas.length - 1; i >= 0; i -= 1) {
    times[i] = at;
    at -= profile.timeDeltas[i] ?? 0;
  }
  const windowEnd = profile.endTime - tailMs * 1000;
  const windowStart = windowEnd - windowMs * 1000;
  /** @type {Map<string, number>} */
  const totals = new Map();
  /** @type {Map<string, number>} */
  const functions = new Map();
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const time = times[index] ?? 0;
    if (!node || time < windowStart || time > windowEnd) return;
    const micros = profile.timeDeltas[index] ?? 0;
    const who = owner(node.callFrame);
    totals.set(who, (totals.get(who) ?? 0) + micros);
    if (who !== 'idle/program') {
      const name = `${node.callFrame.functionName || '(anonymous)'} ${path.basename(node.callFrame.url)}`;
      functions.set(name, (functions.get(name) ?? 0) + micros);
    }
  });
  const busy = [...totals].filter(([who]) => who !== 'idle/program').reduce((sum, [, us]) => sum + us, 0);
  console.log(`CPU per request: ${(busy / requests).toFixed(0)} µs (${requests} requests)`);
  for (const [who, us] of [...totals].sort((a, b) => b[1] - a[1])) {
    if (who === 'idle/program') continue;
    console.log(
      `  ${who.padEnd(30)} ${(us / requests).toFixed(1).padStart(7)} µs  ${((100 * us) / busy).toFixed(1)} %`,
    );
  }
  console.log('  top functions (self time):');
  for (const [name, us] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 15)) {
    console.log(`    ${(us / requests).toFixed(1).padStart(6)} µs  ${name}`);
  }
}

async function main() {
  const args = process.argv.slice(2);
  const split = args.indexOf('--');
  const probePath = (split === -1 ? args : args.slice(0, split))[0] ?? '/api/health';
  const command = split === -1 ? ['dist/lib/server/start.js'] : args.slice(split + 1);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'health-profile-'));
  const server = await startServerProcess({
    command: process.execPath,
    args: [`--cpu-prof`, `--cpu-prof-dir=${dir}`, ...command],
    cwd: process.cwd() === ROOT ? ROOT : process.cwd(),
    env: { HOST: '127.0.0.1', NODE_ENV: 'production' },
    readyPath: probePath,
  });
  // Warm-up first, outside the window that counts: JIT compilation is not per-probe work.
  const url = `${server.url}${probePath}`;
  await load({ url, connections: 10, seconds: 2 });
  const started = performance.now();
  const result = await load({ url, connections: 10, seconds: SECONDS });
  const loadedMs = performance.now() - started;
  const stopping = performance.now();
  await server.stop();
  const tailMs = performance.now() - stopping;
  const file = fs.readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error(`no profile written in ${dir}`);
  summarise(path.join(dir, file), result.requests, loadedMs, tailMs);
  fs.rmSync(dir, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
