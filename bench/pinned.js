#!/usr/bin/env node
// `npm run bench:pinned`: `npm run bench`'s health and /404 rows against bare Next, measured with
// less noise, and with several processes of each kind. Every server runs pinned to core 0 and this
// process (the load generator) to core 1, so they never take CPU from each other; each round loads
// every server in turn, the order rotating from round to round, and the CPU each server used per
// answered request is read from /proc. Each kind runs as BENCH_PROCESSES processes, because two
// processes of one build can differ by 5–10 % for their whole life (most likely how the JIT settled
// in each): a single process of each kind measures that luck as much as the code. Reported: each
// process's median over the rounds, and per kind the median of its processes, as a ratio to bare
// Next and to the same build without FLEET_PEERS. Needs Linux, `taskset` (util-linux) and two
// cores; reuses the builds `npm run bench` made and builds what is missing.
//   BENCH_PROCESSES (3), BENCH_ROUNDS (6), BENCH_SECONDS (3); BENCH_JSON_OUT=FILE also writes the
//   figures there, as `npm run bench` records them (its `pinned` part runs this script).
const fs = require('node:fs');
const path = require('node:path');
const { ROOT, WORK, buildApp, buildBareApp } = require('./lib/builds.js');
const { load } = require('./lib/load.js');
const { median } = require('./lib/median.js');
const { startApp, startAppInFleet, startBare } = require('./lib/servers.js');
const { SERVER_CPU, LOAD_CPU, runPinned, cpuMicros, pin } = require('./lib/pinning.js');

const PROCESSES = Number(process.env.BENCH_PROCESSES) || 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS) || 6;
const SECONDS = Number(process.env.BENCH_SECONDS) || 3;
const CONNECTIONS = 10;
// Pin this process first: run again under taskset unless already there.
runPinned(__filename, 'bench:pinned');

/**
 * @typedef {{ kind: string, name: string, url: string, health: string, pid: number | undefined,
 *   pids: (number | undefined)[], stop: () => Promise<unknown> }} Measured
 */

/** @returns {Promise<Measured[]>} */
async function startAll() {
  fs.mkdirSync(WORK, { recursive: true });
  if (!fs.existsSync(path.join(ROOT, '.next-bench/BUILD_ID'))) buildApp('.next-bench');
  if (!fs.existsSync(path.join(ROOT, '.next-bench-fixtures/BUILD_ID'))) {
    buildApp('.next-bench-fixtures', { APP_SHELL_FIXTURES: '1' });
  }
  const bareDir = fs.existsSync(path.join(WORK, 'bare/.next/BUILD_ID'))
    ? path.join(WORK, 'bare')
    : buildBareApp();
  /** @type {Measured[]} */
  const servers = [];
  for (let i = 1; i <= PROCESSES; i += 1) {
    const bare = await startBare(bareDir);
    servers.push({
      kind: 'bare Next',
      name: `bare Next ${i}`,
      url: bare.url,
      health: '/api/empty',
      pid: bare.child.pid,
      pids: [bare.child.pid],
      stop: bare.stop,
    });
    // Their log lines go to files, as a container runtime takes them, not to this process.
    const alone = await startApp('.next-bench', {}, { stdoutFile: path.join(WORK, `pinned-alone-${i}.log`) });
    servers.push({
      kind: 'alone',
      name: `alone ${i}`,
      url: alone.url,
      health: '/api/health',
      pid: alone.child.pid,
      pids: [alone.child.pid],
      stop: alone.stop,
    });
    const fleet = await startAppInFleet(
      '.next-bench',
      '.next-bench-fixtures',
      {},
      {
        stdoutFile: path.join(WORK, `pinned-fleet-${i}.log`),
      },
    );
    servers.push({
      kind: 'in a fleet',
      name: `in a fleet ${i}`,
      url: fleet.url,
      health: '/api/health',
      pid: fleet.child.pid,
      pids: [fleet.child.pid, fleet.peer.child.pid],
      stop: fleet.stop,
    });
  }
  for (const server of servers) for (const pid of server.pids) pin(pid);
  return servers;
}

/** @param {Measured[]} servers @param {(server: Measured) => string} urlOf */
async function measure(servers, urlOf) {
  /** @type {Map<Measured, { rps: number[], cpu: number[] }>} */
  const results = new Map(servers.map((server) => [server, { rps: [], cpu: [] }]));
  // One warm-up round: the first seconds of a fresh server measure the JIT.
  for (const server of servers)
    await load({ url: urlOf(server), connections: CONNECTIONS, seconds: SECONDS });
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < servers.length; i += 1) {
      const server = /** @type {Measured} */ (servers[(i + round) % servers.length]);
      const before = cpuMicros(server.pid);
      const result = await load({ url: urlOf(server), connections: CONNECTIONS, seconds: SECONDS });
      const used = cpuMicros(server.pid) - before;
      if (result.errors > 0) throw new Error(`${server.name}: ${result.errors} errors`);
      const figures = /** @type {{ rps: number[], cpu: number[] }} */ (results.get(server));
      figures.rps.push(result.rps);
      figures.cpu.push(used / result.requests);
    }
    process.stderr.write(`[pinned] round ${round + 1} of ${ROUNDS}\n`);
  }
  return [...results].map(([server, { rps, cpu }]) => ({ server, rps: median(rps), cpu: median(cpu) }));
}

async function main() {
  const servers = await startAll();
  /** @type {Record<string, Record<string, { rps: number, cpu: number, each: number[] }>>} */
  const figures = {};
  /** @type {string[]} */
  const lines = [
    `${PROCESSES} processes of each kind, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections, ` +
      `servers on core ${SERVER_CPU}, load on core ${LOAD_CPU}, ${process.version}`,
  ];
  try {
    for (const [label, urlOf] of /** @type {[string, (server: Measured) => string][]} */ ([
      ['/api/health', (server) => `${server.url}${server.health}`],
      ['/404', (server) => `${server.url}/missing-page`],
    ])) {
      process.stderr.write(`[pinned] ${label}\n`);
      const measured = await measure(servers, urlOf);
      const kinds = [...new Set(servers.map((server) => server.kind))];
      const byKind = new Map(
        kinds.map((kind) => {
          const mine = measured.filter(({ server }) => server.kind === kind);
          return [kind, { rps: median(mine.map((m) => m.rps)), cpu: median(mine.map((m) => m.cpu)), mine }];
        }),
      );
      figures[label] = Object.fromEntries(
        [...byKind].map(([kind, { rps, cpu, mine }]) => [kind, { rps, cpu, each: mine.map((m) => m.rps) }]),
      );
      const bare = /** @type {{ rps: number }} */ (byKind.get('bare Next')).rps;
      const alone = /** @type {{ rps: number }} */ (byKind.get('alone')).rps;
      for (const [kind, { rps, cpu, mine }] of byKind) {
        const each = mine.map((m) => `${Math.round(m.rps)}`).join(', ');
        lines.push(
          `${label.padEnd(11)} ${kind.padEnd(10)} ${Math.round(rps).toString().padStart(6)} req/s ` +
            `${(rps / bare).toFixed(3)}x bare ${(rps / alone).toFixed(3)}x alone ` +
            `${Math.round(cpu)} µs CPU/request  (each: ${each})`,
        );
      }
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
  }
  // With BENCH_JSON_OUT, `npm run bench` prints its own table: these lines go to stderr.
  (process.env.BENCH_JSON_OUT ? process.stderr : process.stdout).write(`${lines.join('\n')}\n`);
  if (process.env.BENCH_JSON_OUT) {
    const setup = { processes: PROCESSES, rounds: ROUNDS, seconds: SECONDS, connections: CONNECTIONS };
    fs.writeFileSync(process.env.BENCH_JSON_OUT, JSON.stringify({ setup, figures }));
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
