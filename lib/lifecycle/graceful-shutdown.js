// What SIGTERM and SIGINT do to a running HTTP server: drain, stop accepting, let in-flight
// requests finish, flush, exit 0. A second signal exits at once.
const { log } = require('../log/json-line.js');
const { enterPhase, lifecycleState } = require('./state.js');

/**
 * @typedef {object} ShutdownOptions
 * @property {import('node:http').Server} server
 * @property {number} drainMs
 * @property {number} shutdownTimeoutMs
 * @property {number} [flushTimeoutMs]  Cap on the before-exit tasks (flushing error reports).
 * @property {(code: number) => void} [exit]
 * @property {NodeJS.Signals[]} [signals]
 */

/** How long flushing error reports and other before-exit work may take, by default. */
const DEFAULT_FLUSH_TIMEOUT_MS = 2000;

/** @param {number} ms */
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Counts requests in flight and, once draining starts, asks clients to close keep-alive
 * connections so the next request goes to a replica that is not shutting down.
 * @param {import('node:http').Server} server
 */
function trackRequests(server) {
  let inFlight = 0;
  let draining = false;
  // Ahead of the app's own handler, so the header is set before the response can be sent.
  server.prependListener('request', (_req, res) => {
    inFlight += 1;
    if (draining && !res.headersSent) res.setHeader('Connection', 'close');
    res.once('close', () => {
      inFlight -= 1;
    });
  });
  return {
    inFlight: () => inFlight,
    startDraining: () => {
      draining = true;
    },
  };
}

/**
 * Runs every before-exit task in parallel, giving up on them after `timeoutMs`. Never rejects.
 * @param {number} timeoutMs
 */
async function runBeforeExitTasks(timeoutMs) {
  const tasks = [...lifecycleState().beforeExit.entries()].map(async ([name, task]) => {
    try {
      await task();
    } catch (error) {
      log('error', 'lifecycle.before_exit_failed', { task: name, message: String(error) });
    }
  });
  let timer;
  const timedOut = new Promise((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([Promise.all(tasks).then(() => 'done'), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') log('warn', 'lifecycle.before_exit_timeout', { timeoutMs });
}

/**
 * @param {ShutdownOptions} options
 * @returns {{ shutdown: (reason: string) => Promise<void> }}
 */
function installGracefulShutdown({
  server,
  drainMs,
  shutdownTimeoutMs,
  flushTimeoutMs = DEFAULT_FLUSH_TIMEOUT_MS,
  exit = (code) => process.exit(code),
  signals = ['SIGTERM', 'SIGINT'],
}) {
  const requests = trackRequests(server);
  /** @type {Promise<void> | null} */
  let running = null;

  /** @param {string} reason */
  async function shutdown(reason) {
    const started = Date.now();
    enterPhase('draining', { reason, drainMs, shutdownTimeoutMs });
    requests.startDraining();
    if (drainMs > 0) await sleep(drainMs);

    // Stop accepting; idle keep-alive sockets go now, busy ones once their response is sent.
    server.close();
    server.closeIdleConnections();
    const deadline = Date.now() + shutdownTimeoutMs;
    while (requests.inFlight() > 0 && Date.now() < deadline) {
      await sleep(20);
      server.closeIdleConnections();
    }
    const abandoned = requests.inFlight();
    server.closeAllConnections();
    if (abandoned > 0) log('warn', 'lifecycle.requests_abandoned', { count: abandoned, shutdownTimeoutMs });

    await runBeforeExitTasks(flushTimeoutMs);
    enterPhase('closed', { shutdownMs: Date.now() - started });
    exit(0);
  }

  for (const signal of signals) {
    process.on(signal, () => {
      if (running) {
        log('warn', 'lifecycle.forced_exit', { signal });
        exit(signal === 'SIGINT' ? 130 : 143);
        return;
      }
      running = shutdown(signal).catch((error) => {
        log('error', 'lifecycle.shutdown_failed', { message: String(error) });
        exit(1);
      });
    });
  }

  return {
    shutdown: (reason) => {
      if (!running) running = shutdown(reason);
      return running;
    },
  };
}

module.exports = { installGracefulShutdown, trackRequests, DEFAULT_FLUSH_TIMEOUT_MS };
