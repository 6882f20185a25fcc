// The main thread's side of the management listener: it beats the heartbeat many times a second,
// decides readiness in the background as /api/health/ready does, renders its metrics when the
// worker asks for a scrape, and keeps the worker (./worker.ts) that answers /livez, /readyz and
// /metrics running. Started by lib/server/start.ts before Next prepares, so
// probes are answered through a slow start too.
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { HealthStatus } from '../health/types';
import type { Phase } from '../lifecycle/state';
import { errorFields, log } from '../log/logger';
import type { Identity, ManagementLimits } from './decide';
import { heartbeatIn } from './heartbeat';
import type { ManagementMessage, ManagementWorkerData, MetricsText, ScrapeAnswer } from './worker';

export interface ManagementOptions {
  host: string;
  /** 0 picks a free port (tests); the server does not start the listener when MANAGEMENT_PORT is 0. */
  port: number;
  limits: ManagementLimits;
  identity: Identity;
  phase: () => Phase;
  loopDelayMs: () => number;
  /** Readiness as /api/health/ready decides it. */
  readiness: () => Promise<HealthStatus>;
  /**
   * The registry as Prometheus text, for /metrics, or null while there is none yet (a 503);
   * without this option /metrics is a 404.
   */
  metrics?: () => Promise<MetricsText | null>;
  beatEveryMs?: number;
  decideEveryMs?: number;
  /** The compiled worker; beside this file in dist/. */
  workerFile?: string;
  /** Called when the worker cannot be kept running. */
  giveUp?: () => void;
}

export interface Management {
  port: number;
  /**
   * Beats now and decides readiness again: after a phase change, so /readyz follows it without
   * waiting for the next beat or a decision made in the phase before.
   */
  refresh: () => void;
  stop: () => Promise<void>;
}

/** Restarts allowed within this window before the process gives up: a crash loop is not recovery. */
export const RESTART_WINDOW_MS = 60_000;
export const MAX_RESTARTS = 3;

/**
 * Counts a restart at `now` in `restarts` (kept by the caller) and says whether it makes a crash
 * loop: more than MAX_RESTARTS within RESTART_WINDOW_MS.
 */
export function isCrashLoop(restarts: number[], now: number): boolean {
  restarts.push(now);
  // Stops at the restart just counted at the latest, so the list is never emptied here.
  while (restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
  return restarts.length > MAX_RESTARTS;
}

/**
 * Decides readiness one decision at a time: one asked for while another runs is made after it,
 * since the one running may have read the phase before it changed. A decision that fails is 'fail'.
 */
export function decider(
  readiness: () => Promise<HealthStatus>,
  decided: (status: HealthStatus) => void,
): () => void {
  let deciding = false;
  let again = false;
  const decide = () => {
    if (deciding) {
      again = true;
      return;
    }
    deciding = true;
    readiness()
      .then(decided, () => decided('fail'))
      .finally(() => {
        deciding = false;
        if (again) {
          again = false;
          decide();
        }
      });
  };
  return decide;
}

/** What a scrape is answered with: the registry's text, or 'metrics-failed' (logged when it threw). */
export async function scrapeAnswer(
  metrics: (() => Promise<MetricsText | null>) | undefined,
): Promise<ScrapeAnswer> {
  if (!metrics) return { kind: 'metrics-failed' };
  try {
    const text = await metrics();
    return text ? { kind: 'metrics', ...text } : { kind: 'metrics-failed' };
  } catch (error) {
    log('error', 'management.metrics_failed', { error: errorFields(error) });
    return { kind: 'metrics-failed' };
  }
}

/** The worker could not listen: an error the server says in one line, "port in use" included (lib/server/cannot-start.ts). */
export function listenFailure(
  failed: { message: string; code?: string },
  port: number,
  host?: string,
): Error {
  return Object.assign(new Error(`the management listener could not listen: ${failed.message}`), {
    code: failed.code,
    syscall: 'listen',
    port,
    host,
    setting: 'MANAGEMENT_PORT',
  });
}

export async function startManagement(options: ManagementOptions): Promise<Management> {
  const heartbeat = heartbeatIn();
  let status: HealthStatus | null = null;
  const beat = () =>
    heartbeat.write({ at: Date.now(), loopDelayMs: options.loopDelayMs(), phase: options.phase(), status });
  beat();
  const beating = setInterval(beat, options.beatEveryMs ?? 100);
  beating.unref();

  const decide = decider(options.readiness, (decided) => {
    status = decided;
    beat();
  });
  decide();
  const deciding$ = setInterval(decide, options.decideEveryMs ?? 1000);
  deciding$.unref();

  // Stryker disable next-line StringLiteral: unit tests use stand-in workers; the e2e tests run this one from dist/.
  const workerFile = options.workerFile ?? path.join(__dirname, 'worker.js');
  let stopping = false;
  let port = options.port;
  const restarts: number[] = [];

  const answerScrape = (worker: Worker) =>
    void scrapeAnswer(options.metrics).then((answer) => {
      try {
        worker.postMessage(answer);
      } catch {
        // A worker that exited meanwhile: its scrape is gone with it.
      }
    });

  const spawn = (): Promise<Worker> =>
    new Promise((resolve, reject) => {
      const data: ManagementWorkerData = {
        buffer: heartbeat.buffer,
        host: options.host,
        port,
        limits: options.limits,
        identity: options.identity,
        metrics: options.metrics !== undefined,
      };
      const worker = new Worker(workerFile, { workerData: data });
      let started = false;
      worker.on('message', (message: ManagementMessage) => {
        if (message.kind === 'scrape') {
          answerScrape(worker);
        } else if (message.kind === 'listening') {
          started = true;
          port = message.port;
          resolve(worker);
        } else {
          reject(listenFailure(message, options.port, options.host));
          void worker.terminate();
        }
      });
      worker.on('error', (error) => {
        log('error', 'management.worker_failed', { error: errorFields(error) });
        // (Once started, the promise is settled and this does nothing.)
        reject(error);
      });
      worker.on('exit', (code) => {
        if (stopping || !started) return;
        if (isCrashLoop(restarts, Date.now())) {
          log('error', 'management.worker_given_up', { code, restarts: restarts.length });
          // Stryker disable next-line ArrowFunction: a unit test cannot let the process exit; its stand-in giveUp is called instead.
          (options.giveUp ?? (() => process.exit(1)))();
          return;
        }
        log('warn', 'management.worker_restarted', { code });
        spawn().then(
          (next) => (current = next),
          (error: unknown) => {
            log('error', 'management.worker_given_up', { error: errorFields(error) });
            // Stryker disable next-line ArrowFunction: a unit test cannot let the process exit; its stand-in giveUp is called instead.
            (options.giveUp ?? (() => process.exit(1)))();
          },
        );
      });
      // The worker ends with the process; it never keeps it alive. After the listeners: a
      // 'message' listener added later refs the thread again.
      worker.unref();
    });

  let current: Worker;
  try {
    current = await spawn();
  } catch (error) {
    // A start that failed leaves nothing running behind it.
    clearInterval(beating);
    clearInterval(deciding$);
    throw error;
  }
  log('info', 'management.listening', { host: options.host, port });
  return {
    port,
    refresh: () => {
      beat();
      decide();
    },
    stop: async () => {
      stopping = true;
      clearInterval(beating);
      clearInterval(deciding$);
      await current.terminate();
    },
  };
}
