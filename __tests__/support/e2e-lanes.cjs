// The end-to-end suite in two lanes, for `npm test` (E2E_LANES=2): one Jest process per lane, each
// running its files one at a time, side by side on the two cores. Most of a browser test's time is
// spent waiting (for a page, a server, a balancer's check), so two files at once finish sooner;
// two Jest workers in one process cannot do it, because the files that share the reporting
// builds' one ingest must never run at the same time.
//
// That ingest is why there are lanes, and what picks them. The reporting builds bake one DSN, and
// with it one loopback port, into their browser code (support/builds.ts); a file that serves one
// of those builds, or listens on that port, would receive or send another file's reports. Such a
// file names one of the names below, and runs in the `ingest` lane; every other file runs in the
// `other` lane. Reading the files for those names, rather than keeping a list, means a new file
// that uses the ingest cannot land in the wrong lane.
//
// The `ingest` lane is the `npm test` process itself: its set-up makes every build (once, before
// any test), then starts the `other` lane as a child, which finds the builds made
// (APP_SHELL_BUILT_THIS_RUN, inherited). Its tear-down waits for the child, prints what the child
// printed, and fails the run if the child failed. `npm run test:e2e` alone (no E2E_LANES) runs
// every file in one lane, as before.
'use strict';

const { spawn } = require('node:child_process');
const { readdirSync, readFileSync } = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const E2E_DIR = path.join(ROOT, '__tests__/e2e');

/** A file that names one of these serves a reporting build or listens on its ingest's port. */
const USES_INGEST =
  /\b(reportingBuild|startReportingStack|startIngest|REPORTING_DIST|TRACING_DIST|REPORTING_NEXT_DIST|SAMPLED_DIST)\b/;

/** @typedef {'ingest' | 'other'} Lane */

/** @param {string} source @returns {Lane} */
const laneOfSource = (source) => (USES_INGEST.test(source) ? 'ingest' : 'other');

/** Every end-to-end test file, by lane (paths from the root). @returns {Record<Lane, string[]>} */
function filesByLane() {
  /** @type {Record<Lane, string[]>} */
  const lanes = { ingest: [], other: [] };
  for (const name of readdirSync(E2E_DIR)
    .filter((file) => file.endsWith('.test.ts'))
    .sort()) {
    lanes[laneOfSource(readFileSync(path.join(E2E_DIR, name), 'utf8'))].push(`__tests__/e2e/${name}`);
  }
  return lanes;
}

/** This process's lane: set for the child, the `ingest` lane for `npm test`'s own; none alone. @returns {Lane | undefined} */
function currentLane() {
  const lane = process.env.E2E_LANE;
  if (lane === 'ingest' || lane === 'other') return lane;
  return process.env.E2E_LANES === '2' ? 'ingest' : undefined;
}

/** The `testMatch` of this process: its lane's files, or every file when there are no lanes. */
function testMatch() {
  const lane = currentLane();
  if (!lane) return ['<rootDir>/__tests__/e2e/**/*.test.ts'];
  return filesByLane()[lane].map((file) => `<rootDir>/${file}`);
}

const CHILD = Symbol.for('app-shell.e2e-other-lane');

/**
 * From the `ingest` lane's set-up, once the builds are made: the `other` lane, as a child Jest
 * with this process's environment (and so its builds), its output kept for the tear-down.
 */
function startOtherLane() {
  if (currentLane() !== 'ingest' || process.env.E2E_LANE) return;
  process.stdout.write(
    `\n[tests] the other lane starts beside this one: ${filesByLane().other.length} files\n`,
  );
  const child = spawn(
    process.execPath,
    [require.resolve('jest/bin/jest'), '--ci', '-c', 'jest.e2e.config.js', '--runInBand'],
    { cwd: ROOT, env: { ...process.env, E2E_LANE: 'other' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk) => (output += chunk));
  // A run stopped early (Ctrl-C, a failed set-up) stops the child with it.
  const stop = () => child.kill('SIGTERM');
  process.once('exit', stop);
  /** @type {Promise<{ code: number | null; output: string }>} */
  const ended = new Promise((resolve) => {
    child.on('error', (error) => resolve({ code: null, output: `${output}\n${String(error)}` }));
    child.on('close', (code) => {
      process.off('exit', stop);
      resolve({ code, output });
    });
  });
  /** @type {Record<symbol, unknown>} */ (globalThis)[CHILD] = ended;
}

/** From the `ingest` lane's tear-down: waits for the other lane, shows its output, fails with it. */
async function endOtherLane() {
  const ended = /** @type {Promise<{ code: number | null; output: string }> | undefined} */ (
    /** @type {Record<symbol, unknown>} */ (globalThis)[CHILD]
  );
  if (!ended) return;
  const { code, output } = await ended;
  process.stdout.write(`\n[tests] the other lane (E2E_LANE=other):\n${output}\n`);
  if (code !== 0)
    throw new Error(`The other lane of the end-to-end tests failed (exit ${code}); its output is above.`);
}

module.exports = {
  USES_INGEST,
  laneOfSource,
  filesByLane,
  currentLane,
  testMatch,
  startOtherLane,
  endOtherLane,
};
