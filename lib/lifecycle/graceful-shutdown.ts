// What SIGTERM and SIGINT do to a running HTTP server: drain, stop accepting, let in-flight
// requests finish, flush, exit 0. A second signal exits at once.
import type { Server, ServerResponse } from 'node:http';
import { errorFields, log } from '../log/logger';
import { FLUSH_TIMEOUT_MS, IN_FLIGHT_POLL_MS } from './shutdown-budget';
import { enterPhase, lifecycleState } from './state';

export interface ShutdownOptions {
  server: Server;
  /** The server's count of requests in flight (lib/server/pipeline.ts keeps it). */
  requests: RequestCounter;
  drainMs: number;
  shutdownTimeoutMs: number;
  /** Called once readiness has turned to draining. */
  onDraining?: () => void;
  /** Cap on the before-exit tasks (flushing error reports); FLUSH_TIMEOUT_MS by default. */
  flushTimeoutMs?: number;
  /** The most the whole stop takes (./shutdown-budget.ts), said in the draining line. */
  budgetMs?: number;
  /**
   * After the flush, what the process still holds goes to a peer (waiting reports:
   * lib/reporting/queue/hand-off.ts), within its own time, which it keeps itself. Never rejects.
   */
  handOver?: () => Promise<unknown>;
  /**
   * Requests whose bodies are still arriving this long after the server stops accepting are timed
   * out by `cut` (./connection-limit's timeOutReceiving): Node's own request timeout stops with
   * `server.close()`, and a body trickled a byte at a time would otherwise hold the drain until
   * its end. The server's request timeout: no stalled request counts against the drain for longer.
   */
  stalled?: { afterMs: number; cut: () => void };
  exit?: (code: number) => void;
  signals?: NodeJS.Signals[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface RequestCounter {
  /** Called first for every request: counts it until its response closes. */
  requestStarted: (res: ServerResponse) => void;
  inFlight: () => number;
  /** From now on every response asks its client to close the connection. */
  startDraining: () => void;
}

/**
 * Counts requests in flight and, once draining starts, asks clients to close keep-alive
 * connections so the next request goes to a replica that is not shutting down.
 */
export function createRequestCounter(): RequestCounter {
  let inFlight = 0;
  let draining = false;
  const finished = () => {
    inFlight -= 1;
  };
  return {
    requestStarted: (res) => {
      inFlight += 1;
      if (draining) res.setHeader('Connection', 'close');
      res.once('close', finished);
    },
    inFlight: () => inFlight,
    startDraining: () => {
      draining = true;
    },
  };
}

/** Runs every before-exit task in parallel, giving up on them after `timeoutMs`. Never rejects. */
async function runBeforeExitTasks(timeoutMs: number): Promise<void> {
  const tasks = [...lifecycleState().beforeExit.entries()].map(async ([name, task]) => {
    try {
      await task();
    } catch (error) {
      log('error', 'lifecycle.before_exit_failed', { task: name, error: errorFields(error) });
    }
  });
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  const outcome = await Promise.race([Promise.all(tasks), timedOut]);
  clearTimeout(timer);
  if (outcome === 'timeout') log('warn', 'lifecycle.before_exit_timeout', { timeoutMs });
}

export function installGracefulShutdown({
  server,
  requests,
  onDraining,
  drainMs,
  shutdownTimeoutMs,
  flushTimeoutMs = FLUSH_TIMEOUT_MS,
  budgetMs,
  handOver,
  stalled,
  exit = (code) => process.exit(code),
  signals = ['SIGTERM', 'SIGINT'],
}: ShutdownOptions): { shutdown: (reason: string) => Promise<void> } {
  let running: Promise<void> | null = null;

  async function shutdown(reason: string) {
    const started = Date.now();
    // (Without a budget none is said: a field that is undefined is not written.)
    enterPhase('draining', { reason, drainMs, shutdownTimeoutMs, budgetMs });
    onDraining?.();
    requests.startDraining();
    await sleep(drainMs);

    // Stop accepting; idle keep-alive sockets go now, busy ones once their response is sent.
    // Logged first, so every connection refused from here on is later than this line's time.
    log('info', 'lifecycle.stop_accepting', { inFlight: requests.inFlight() });
    server.close();
    server.closeIdleConnections();
    const cutStalled = stalled ? setTimeout(stalled.cut, stalled.afterMs) : undefined;
    const deadline = Date.now() + shutdownTimeoutMs;
    while (requests.inFlight() > 0 && Date.now() < deadline) {
      await sleep(IN_FLIGHT_POLL_MS);
      server.closeIdleConnections();
    }
    clearTimeout(cutStalled);
    const abandoned = requests.inFlight();
    server.closeAllConnections();
    if (abandoned > 0) log('warn', 'lifecycle.requests_abandoned', { count: abandoned, shutdownTimeoutMs });

    await runBeforeExitTasks(flushTimeoutMs);
    await handOver?.().catch((error: unknown) =>
      log('error', 'lifecycle.hand_over_failed', { error: errorFields(error) }),
    );
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
      running = shutdown(signal).catch((error: unknown) => {
        log('error', 'lifecycle.shutdown_failed', { error: errorFields(error) });
        exit(1);
      });
    });
  }

  return {
    shutdown: (reason) => {
      running ??= shutdown(reason);
      return running;
    },
  };
}
