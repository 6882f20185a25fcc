// Starts a server process on a free loopback port and waits until it answers; used by the
// end-to-end tests and the benchmarks alike. Plain CommonJS so both can load it.
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const http = require('node:http');
const net = require('node:net');

/** Ports this process has handed out: the same free port can come up twice in a row. */
const handedOut = new Set();

/** Where Linux says which ports it picks by itself, for a connection out or a listen on port 0. */
const SYSTEM_RANGE = '/proc/sys/net/ipv4/ip_local_port_range';

/** Ports handed out lie from here to just below the system's own range. */
const FIRST_PORT = 10_000;

/**
 * The first port of the system's own range; Linux's default where the file cannot be read.
 * @param {string} [file] @returns {number}
 */
function systemRangeStart(file = SYSTEM_RANGE) {
  try {
    // "32768\t60999\n": the number before the tab.
    return Number.parseInt(fs.readFileSync(file, 'utf8'), 10);
  } catch {
    return 32_768;
  }
}

/**
 * A random port below the system's own range if nothing listens on it now, else null. Below the
 * range, nothing takes the port before its server binds it but another explicit bind: a port from
 * `listen(0)` is in the range, where the next connection out can take it first.
 * @returns {Promise<number | null>}
 */
function unusedPort() {
  const port = FIRST_PORT + Math.floor(Math.random() * (systemRangeStart() - FIRST_PORT));
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(null));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(port)));
  });
}

/**
 * A port nothing listens on now and that this process has not handed out before, so two ports
 * asked for before either is bound (a server's and its management listener's) differ.
 * @returns {Promise<number>}
 */
async function freePort() {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const port = await unusedPort();
    if (port !== null && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no port left that was not handed out before');
}

/**
 * One GET with a short timeout; resolves with the status, or 0 when nothing answered.
 * @param {string} url
 * @returns {Promise<number>}
 */
function statusOf(url) {
  return new Promise((resolve) => {
    const req = http.get(url, { timeout: 1000, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
  });
}

/**
 * @typedef {object} ServerProcess
 * @property {string} url
 * @property {number} port
 * @property {import('node:child_process').ChildProcess} child
 * @property {number} readyAfterMs  From spawn to the first answer with `readyStatus` on `readyPath`.
 * @property {number} managementPort  The app's management listener (/livez, /readyz), on a free port
 *   of its own unless `env` names one.
 * @property {() => string} output
 * @property {Promise<number | null>} exited
 * @property {() => Promise<number | null>} stop  SIGTERM; SIGKILL after 20 s.
 */

/**
 * @param {{ command: string, args: string[], cwd: string, env?: Record<string, string>,
 *   readyPath: string, readyStatus?: number, port?: number, timeoutMs?: number,
 *   setPortVariable?: boolean, stdoutFile?: string }} options
 *   `args` may contain `{port}`, replaced by the chosen port. With `setPortVariable: false` the
 *   process is not given PORT (nor the parent's): it must find `port` by itself, from a .env file.
 *   With `stdoutFile`, standard output goes to that file instead of this process (`output()` then
 *   holds only standard error): a benchmark's load generator must not be its log reader too.
 * @returns {Promise<ServerProcess>}
 */
async function startServerProcess(options) {
  // A port the caller chose is the caller's to choose again (startAppInFleet, bench/lib/servers.js).
  return options.port === undefined ? choosingPortsAgain(() => startOnce(options)) : startOnce(options);
}

/** Starts with a port taken meanwhile are tried again, up to this many times in all. */
const PORT_ATTEMPTS = 3;

/** A start that failed because a port was in use: the server says so and exits. */
class PortTaken extends Error {}

/**
 * `start` again while it fails with PortTaken, PORT_ATTEMPTS times in all. A port only looks free
 * when it is chosen: another process can take it before the child listens, so `start` chooses its
 * ports anew each time.
 * @template T @param {() => Promise<T>} start @returns {Promise<T>}
 */
async function choosingPortsAgain(start) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await start();
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= PORT_ATTEMPTS) throw error;
    }
  }
}

/** @param {Parameters<typeof startServerProcess>[0]} options @returns {Promise<ServerProcess>} */
async function startOnce({
  command,
  args,
  cwd,
  env = {},
  readyPath,
  readyStatus = 200,
  port,
  timeoutMs = 60_000,
  setPortVariable = true,
  stdoutFile,
}) {
  const chosen = port ?? (await freePort());
  /** @type {NodeJS.ProcessEnv} */
  const childEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env };
  if (setPortVariable) childEnv.PORT = String(chosen);
  else delete childEnv.PORT;
  // Servers run side by side here: each gets its own management port, never the default 9464.
  if (env.MANAGEMENT_PORT === undefined) childEnv.MANAGEMENT_PORT = String(await freePort());
  const managementPort = Number(childEnv.MANAGEMENT_PORT);
  const started = performance.now();
  const stdoutFd = stdoutFile ? fs.openSync(stdoutFile, 'w') : undefined;
  const child = spawn(
    command,
    args.map((arg) => arg.replace('{port}', String(chosen))),
    {
      cwd,
      env: childEnv,
      stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'],
    },
  );
  // The child has its own copy of the descriptor.
  if (stdoutFd !== undefined) fs.closeSync(stdoutFd);
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${chosen}`;
  const deadline = Date.now() + timeoutMs;
  /** @type {number | null} */
  let readyAfterMs = null;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if ((await statusOf(`${url}${readyPath}`)) === readyStatus) {
      readyAfterMs = performance.now() - started;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (readyAfterMs === null) {
    child.kill('SIGKILL');
    const said = `${output}${stdoutFile ? fs.readFileSync(stdoutFile, 'utf8') : ''}`;
    const why =
      child.exitCode !== null ? `exited (${child.exitCode})` : `was not ready within ${timeoutMs} ms`;
    const message = `${command} ${args.join(' ')} ${why}\n${said}`;
    throw /is already in use/.test(said) ? new PortTaken(message) : new Error(message);
  }
  // A child that has exited already is signalled for nothing, and `exited` has its code.
  const stop = async () => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.kill('SIGTERM');
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { url, port: chosen, managementPort, child, readyAfterMs, output: () => output, exited, stop };
}

module.exports = { choosingPortsAgain, freePort, PortTaken, startServerProcess, systemRangeStart };
