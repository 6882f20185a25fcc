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
const RESTART_WINDOW_MS = 60_000;
const MAX_RESTARTS = 3;

export async function startManagement(options: ManagementOptions): Promise<Management> {
  const heartbeat = heartbeatIn();
  let status: HealthStatus | null = null;
  const beat = () =>
    heartbeat.write({ at: Date.now(), loopDelayMs: options.loopDelayMs(), phase: options.phase(), status });
  beat();
  const beating = setInterval(beat, options.beatEveryMs ?? 100);
  beating.unref();

  let deciding = false;
  // A decision asked for while one runs: that one may have read the phase before it changed.
  let again = false;
  const decide = () => {
    if (deciding) {
      again = true;
      return;
    }
    deciding = true;
    options
      .readiness()
      .then((decided) => {
        status = decided;
      })
      .catch(() => {
        status = 'fail';
      })
      .finally(() => {
        deciding = false;
        beat();
        if (again) {
          again = false;
          decide();
        }
      });
  };
  decide();
  const deciding$ = setInterval(decide, options.decideEveryMs ?? 1000);
  deciding$.unref();

  const workerFile = options.workerFile ?? path.join(__dirname, 'worker.js');
  let stopping = false;
  let port = options.port;
  const restarts: number[] = [];

  const answerScrape = (worker: Worker) => {
    const reply = (answer: ScrapeAnswer) => {
      try {
        worker.postMessage(answer);
      } catch {
        // A worker that exited meanwhile: its scrape is gone with it.
      }
    };
    if (!options.metrics) return reply({ kind: 'metrics-failed' });
    options.metrics().then(
      (metrics) => reply(metrics ? { kind: 'metrics', ...metrics } : { kind: 'metrics-failed' }),
      (error: unknown) => {
        log('error', 'management.metrics_failed', { error: errorFields(error) });
        reply({ kind: 'metrics-failed' });
      },
    );
  };

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
      // The worker ends with the process; it never keeps it alive.
      worker.unref();
      let started = false;
      worker.on('message', (message: ManagementMessage) => {
        if (message.kind === 'scrape') {
          answerScrape(worker);
        } else if (message.kind === 'listening') {
          started = true;
          port = message.port;
          resolve(worker);
        } else {
          // The code travels with it, so the server can say "port in use" in one line (lib/server/cannot-start.ts).
          reject(
            Object.assign(new Error(`the management listener could not listen: ${message.message}`), {
              code: message.code,
              syscall: 'listen',
              port: options.port,
              setting: 'MANAGEMENT_PORT',
            }),
          );
          void worker.terminate();
        }
      });
      worker.on('error', (error) => {
        log('error', 'management.worker_failed', { error: errorFields(error) });
        if (!started) reject(error);
      });
      worker.on('exit', (code) => {
        if (stopping || !started) return;
        const now = Date.now();
        restarts.push(now);
        while (restarts.length > 0 && restarts[0]! < now - RESTART_WINDOW_MS) restarts.shift();
        if (restarts.length > MAX_RESTARTS) {
          log('error', 'management.worker_given_up', { code, restarts: restarts.length });
          (options.giveUp ?? (() => process.exit(1)))();
          return;
        }
        log('warn', 'management.worker_restarted', { code });
        spawn().then(
          (next) => (current = next),
          (error: unknown) => {
            log('error', 'management.worker_given_up', { error: errorFields(error) });
            (options.giveUp ?? (() => process.exit(1)))();
          },
        );
      });
    });

  let current = await spawn();
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
