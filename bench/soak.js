#!/usr/bin/env node
// `npm run bench:soak`: memory under a few minutes of mixed traffic, this app against bare Next at
// once. Both servers get the same requests at the same steady pace (SOAK_RATE a second each): half
// made-up page paths, each one new (what scanners and broken links send), three tenths a product
// page rendered per request, two tenths the health probe. Each server's resident memory (RSS, from
// /proc, every thread of it) is read every SOAK_SAMPLE_MS; the run is cut into SOAK_PHASES phases
// and each phase's floor (its lowest reading: what is left once the collector has run), median and
// peak are printed. The first phase is the warm-up (the JIT, Next's lazily loaded code) and is not
// held to anything.
//
// Fails (exit 1) when this app's floor rises: the last phase's floor more than SOAK_LEAK_MIB over
// the lowest floor of the phases after the warm-up, which is what a leak looks like once every
// bounded cache is full. Also prints the aims of the issue "Lean under load" (median within 8 MiB
// of bare Next's, peak within 16 MiB) as met or missed, from every reading after the warm-up.
//
// This app is the fixture build (`.next-bench-fixtures`, whose `/__fixtures__/slow?ms=0` renders a
// page per request); bare Next gets a page that does the same (bench/lib/builds.js). Both are built
// when missing. Loopback only, bounded in time; nothing here retries.
//   SOAK_SECONDS (240), SOAK_RATE (300), SOAK_PHASES (4), SOAK_SAMPLE_MS (1000), SOAK_LEAK_MIB (4);
//   SOAK_JSON_OUT=FILE also writes the figures there. SOAK_PROFILE=1 runs both servers under V8's
//   CPU profiler and its sampling heap profiler (freed objects kept: the garbage) and prints where
//   the CPU and the bytes went per request, by whose code and by the shell's stage
//   (./lib/profilers.js, ./lib/profile-summary.js); its memory figures are then of profiled servers, not comparable.
const fs = require('node:fs');
const autocannon = require('autocannon');
const path = require('node:path');
const { ROOT, WORK, buildApp, buildBareApp } = require('./lib/builds.js');
const { median } = require('./lib/median.js');
const { summariseAllocations, summariseCpu } = require('./lib/profile-summary.js');
const { rssMiB, startApp, startBare } = require('./lib/servers.js');

const SECONDS = Number(process.env.SOAK_SECONDS) || 240;
const RATE = Number(process.env.SOAK_RATE) || 300;
const PHASES = Number(process.env.SOAK_PHASES) || 4;
const SAMPLE_MS = Number(process.env.SOAK_SAMPLE_MS) || 1000;
const LEAK_MIB = Number(process.env.SOAK_LEAK_MIB) || 4;
const PROFILE = process.env.SOAK_PROFILE === '1';
/** The aims of the issue "Lean under load", against bare Next. */
const MEDIAN_AIM_MIB = 8;
const PEAK_AIM_MIB = 16;
/** Connections to each server: more than the rate ever keeps busy at once. */
const CONNECTIONS = 16;
/** An answer slower than this counts as an error: the load stays open-loop and bounded. */
const REQUEST_TIMEOUT_MS = 5000;

/** @param {string} message */
function progress(message) {
  process.stderr.write(`[soak] ${message}\n`);
}

/**
 * The i-th request of the mix, the same for both servers: 5 in 10 a new made-up page, 3 a product
 * page, 2 the health probe.
 * @param {number} i @param {{ product: string, health: string }} paths
 */
function pathFor(i, paths) {
  const slot = i % 10;
  if (slot < 5) return `/soak/missing-${i.toString(36)}`;
  if (slot < 8) return paths.product;
  return paths.health;
}

/**
 * Sends RATE requests a second to one server for `seconds`, with autocannon (as ./lib/load.js, at a
 * fixed overall rate, the i-th request's path from pathFor). Counts answers by status; a request
 * that fails or takes over REQUEST_TIMEOUT_MS counts as an error.
 * @param {string} base @param {{ product: string, health: string }} paths @param {number} seconds
 * @returns {Promise<{ sent: number, statuses: Record<string, number>, errors: number }>}
 */
async function drive(base, paths, seconds) {
  let sent = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    overallRate: RATE,
    duration: seconds,
    timeout: REQUEST_TIMEOUT_MS / 1000,
    requests: [{ setupRequest: (request) => ({ ...request, path: pathFor(sent++, paths) }) }],
  });
  /** @type {Record<string, number>} */
  const statuses = {};
  for (const [status, { count }] of Object.entries(result.statusCodeStats ?? {}))
    statuses[status] = count ?? 0;
  return { sent, statuses, errors: result.errors + result.timeouts };
}

/** Floor, median and peak of some readings. @param {number[]} readings */
function summary(readings) {
  return {
    floor: Math.min(...readings),
    median: median(readings),
    peak: Math.max(...readings),
  };
}

/** @param {number} value */
const mib = (value) => `${value.toFixed(1)} MiB`;

async function main() {
  fs.mkdirSync(WORK, { recursive: true });
  if (!fs.existsSync(path.join(ROOT, '.next-bench-fixtures/BUILD_ID'))) {
    progress('building this app with its fixture pages');
    buildApp('.next-bench-fixtures', { APP_SHELL_FIXTURES: '1' });
  }
  let bareDir = path.join(WORK, 'bare');
  if (!fs.existsSync(path.join(bareDir, '.next/server/pages/product.js'))) {
    progress('building bare Next');
    bareDir = buildBareApp();
  }
  /**
   * Each server's profiler settings and where its profiles go, with SOAK_PROFILE=1.
   * @param {string} name @returns {{ dir: string, env: Record<string, string> }}
   */
  const profiling = (name) => {
    if (!PROFILE) return { dir: '', env: {} };
    const dir = path.join(WORK, 'soak-profile', name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    const preload = path.join(__dirname, 'lib/profilers.js');
    return { dir, env: { NODE_OPTIONS: `--require ${preload}`, PROFILE_OUT_DIR: dir } };
  };
  const appProfile = profiling('app');
  const bareProfile = profiling('bare');
  // Its log lines go to a file, as a container runtime takes them, not to this process.
  const app = await startApp('.next-bench-fixtures', appProfile.env, {
    stdoutFile: path.join(WORK, 'soak-app.log'),
  });
  const bare = await startBare(bareDir, bareProfile.env);
  const servers = [
    { name: 'this app', server: app, paths: { product: '/__fixtures__/slow?ms=0', health: '/api/health' } },
    { name: 'bare Next', server: bare, paths: { product: '/product?ms=0', health: '/api/empty' } },
  ];
  /** @type {{ at: number, rss: number[] }[]} */
  const samples = [];
  const began = Date.now();
  const sampler = setInterval(() => {
    samples.push({ at: Date.now() - began, rss: servers.map(({ server }) => rssMiB(server.child.pid)) });
  }, SAMPLE_MS);
  progress(
    `${SECONDS} s at ${RATE} req/s each (5/10 new made-up pages, 3/10 a product page, 2/10 health), ` +
      `RSS every ${SAMPLE_MS} ms, ${PHASES} phases`,
  );
  let loads;
  try {
    loads = await Promise.all(servers.map(({ server, paths }) => drive(server.url, paths, SECONDS)));
  } finally {
    clearInterval(sampler);
    await Promise.all([app.stop(), bare.stop()]);
  }
  const phaseMs = (SECONDS * 1000) / PHASES;
  const phases = Array.from({ length: PHASES }, (_, phase) =>
    samples.filter(({ at }) => at >= phase * phaseMs && at < (phase + 1) * phaseMs),
  ).filter((phase) => phase.length > 0);
  const afterWarmUp = phases.slice(1).flat();
  if (phases.length < 3 || afterWarmUp.some(({ rss }) => rss.some((value) => !Number.isFinite(value))))
    throw new Error('too few readings of RSS: lengthen SOAK_SECONDS or shorten SOAK_SAMPLE_MS');

  /** @type {string[]} */
  const lines = [
    `${SECONDS} s at ${RATE} req/s to each server, ${samples.length} readings, ${process.version}`,
    'phase  server     floor        median       peak',
  ];
  const figures = servers.map(({ name }, s) => {
    const perPhase = phases.map((phase) => summary(phase.map(({ rss }) => /** @type {number} */ (rss[s]))));
    perPhase.forEach((p, i) =>
      lines.push(
        `${String(i + 1).padEnd(6)} ${name.padEnd(10)} ${mib(p.floor).padEnd(12)} ${mib(p.median).padEnd(12)} ${mib(p.peak)}`,
      ),
    );
    const overall = summary(afterWarmUp.map(({ rss }) => /** @type {number} */ (rss[s])));
    // A leak: the last phase's floor over the lowest floor after the warm-up.
    const floors = perPhase.slice(1).map((p) => p.floor);
    const floorRise = /** @type {number} */ (floors.at(-1)) - Math.min(...floors);
    return { name, perPhase, overall, floorRise, load: loads[s] };
  });
  const [ours, theirs] = /** @type {[typeof figures[0], typeof figures[0]]} */ (figures);
  for (const { name, overall, floorRise, load } of figures) {
    lines.push(
      `${name}: after the warm-up floor ${mib(overall.floor)}, median ${mib(overall.median)}, peak ` +
        `${mib(overall.peak)}; floor rise ${mib(floorRise)}; ${load.sent} sent, answers ${JSON.stringify(load.statuses)}, ${load.errors} errors`,
    );
  }
  const medianOver = ours.overall.median - theirs.overall.median;
  const peakOver = ours.overall.peak - theirs.overall.peak;
  const leaked = ours.floorRise > LEAK_MIB;
  lines.push(
    `median over bare Next: ${mib(medianOver)} (aim ≤ ${MEDIAN_AIM_MIB} MiB: ${medianOver <= MEDIAN_AIM_MIB ? 'met' : 'MISSED'})`,
    `peak over bare Next: ${mib(peakOver)} (aim ≤ ${PEAK_AIM_MIB} MiB: ${peakOver <= PEAK_AIM_MIB ? 'met' : 'MISSED'})`,
    `floor: ${leaked ? `ROSE ${mib(ours.floorRise)}, over ${LEAK_MIB} MiB: a leak` : `flat (rose ${mib(ours.floorRise)}, at most ${LEAK_MIB} MiB)`}`,
  );
  if (PROFILE) {
    lines.push('(profiled: the memory figures above are of servers under two profilers)');
    for (const [{ name, load }, { dir }] of /** @type {const} */ ([
      [ours, appProfile],
      [theirs, bareProfile],
    ])) {
      const cpuFile = fs.readdirSync(dir).find((file) => file.endsWith('.cpuprofile'));
      const answered = Object.values(load.statuses).reduce((sum, count) => sum + count, 0);
      if (cpuFile) {
        const cpu = summariseCpu(path.join(dir, cpuFile), answered);
        lines.push(
          `${name}: CPU ${cpu.microsPerRequest.toFixed(0)} µs per request (whole life, start included)`,
        );
        lines.push(...cpu.byOwner.map(([who, us]) => `  in ${who}: ${(us / answered).toFixed(1)} µs`));
        lines.push(...cpu.byStage.map(([stage, us]) => `  under ${stage}: ${(us / answered).toFixed(1)} µs`));
      }
      const allocations = path.join(dir, 'allocations.json');
      if (fs.existsSync(allocations)) {
        const bytes = summariseAllocations(allocations, answered);
        lines.push(`${name}: ${(bytes.bytesPerRequest / 1024).toFixed(1)} KiB allocated per request`);
        lines.push(
          ...bytes.byOwner.map(([who, b]) => `  by ${who}: ${(b / answered / 1024).toFixed(2)} KiB`),
        );
        lines.push(
          ...bytes.byStage.map(([stage, b]) => `  under ${stage}: ${(b / answered / 1024).toFixed(2)} KiB`),
        );
      }
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (process.env.SOAK_JSON_OUT) {
    const setup = { seconds: SECONDS, rate: RATE, phases: PHASES, sampleMs: SAMPLE_MS, leakMiB: LEAK_MIB };
    fs.writeFileSync(process.env.SOAK_JSON_OUT, JSON.stringify({ setup, figures, medianOver, peakOver }));
  }
  const failed = figures.some(({ load }) => load.errors > 0);
  if (failed)
    process.stderr.write('[soak] some requests failed: the figures are of a server that did not keep up\n');
  process.exitCode = leaked || failed ? 1 : 0;
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
