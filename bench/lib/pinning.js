// What the pinned benches share: every server on core 0, the load generator on core 1, so they never
// take CPU from each other, and the CPU a server used read from /proc.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');

const SERVER_CPU = '0';
const LOAD_CPU = '1';

/**
 * Runs `file` again under taskset on the load core, unless this process already is; `before` runs
 * first, on both cores (a build), and what it returns reaches the pinned run as `envName`'s JSON.
 * @param {string} file @param {string} name @param {{ before?: () => unknown, envName?: string }} [options]
 */
function runPinned(file, name, { before, envName } = {}) {
  if (process.env.BENCH_PINNED === '1') return;
  if (os.cpus().length < 2) throw new Error(`${name} needs two cores`);
  const handed = before?.();
  const result = spawnSync('taskset', ['-c', LOAD_CPU, process.execPath, file], {
    stdio: 'inherit',
    env: {
      ...process.env,
      BENCH_PINNED: '1',
      ...(envName ? { [envName]: JSON.stringify(handed) } : {}),
    },
  });
  process.exit(result.status ?? 1);
}

/** CPU time (user + system) of a process and all its threads, in µs. @param {number | undefined} pid */
function cpuMicros(pid) {
  // utime and stime are fields 14 and 15 of stat; after the command's ") " the list starts at field 3.
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100; // USER_HZ is 100 on Linux.
}

/** Every thread of the process (its workers too) to the server core. @param {number | undefined} pid */
function pin(pid) {
  const result = spawnSync('taskset', ['-a', '-p', '-c', SERVER_CPU, String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset failed: ${result.stderr}`);
}

module.exports = { SERVER_CPU, LOAD_CPU, runPinned, cpuMicros, pin };
