// The management listener, on a worker thread of its own: GET /livez and /readyz answered from the
// main loop's heartbeat (./heartbeat.ts), whatever that loop is doing, and GET /metrics with the
// text the main thread renders from its registry when asked (lib/metrics/). Started by
// ./listener.ts; compiled to dist/lib/management/worker.js beside the server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { decideLive, decideReady, type Identity, type ManagementLimits } from './decide';
import { heartbeatIn } from './heartbeat';

export interface ManagementWorkerData {
  buffer: SharedArrayBuffer;
  host: string;
  port: number;
  limits: ManagementLimits;
  identity: Identity;
  /** Whether the main thread has a registry to ask for /metrics. */
  metrics: boolean;
}

/** What the worker tells the main thread. */
export type ManagementMessage =
  | { kind: 'listening'; port: number }
  | { kind: 'failed'; message: string; code?: string }
  | { kind: 'scrape' };

/** What the main thread answers a scrape with. */
export type ScrapeAnswer =
  { kind: 'metrics'; contentType: string; text: string } | { kind: 'metrics-failed' };

export interface MetricsText {
  contentType: string;
  text: string;
}

/** How long a scrape waits for the main thread before it is answered 503. */
export const SCRAPE_TIMEOUT_MS = 5000;
/**
 * A rendering this young is served again: however many scrapes come in, the main thread renders
 * at most once a second.
 */
export const SCRAPE_REUSE_MS = 1000;

/**
 * Scrapes through `ask`, which asks the main thread: at most one question at a time, answers
 * reused for SCRAPE_REUSE_MS, and null when the main thread has not answered in time.
 */
export function scraper(
  ask: () => Promise<MetricsText | null>,
  { timeoutMs = SCRAPE_TIMEOUT_MS, reuseMs = SCRAPE_REUSE_MS } = {},
): () => Promise<MetricsText | null> {
  let last: { at: number; metrics: MetricsText } | null = null;
  let asking: Promise<MetricsText | null> | null = null;
  return () => {
    if (last && Date.now() - last.at < reuseMs) return Promise.resolve(last.metrics);
    asking ??= new Promise<MetricsText | null>((resolve) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      ask().then(
        (metrics) => {
          clearTimeout(timer);
          if (metrics) last = { at: Date.now(), metrics };
          resolve(metrics);
        },
        () => {
          clearTimeout(timer);
          resolve(null);
        },
      );
    }).finally(() => {
      asking = null;
    });
    return asking;
  };
}

const HEADERS = {
  'Content-Type': 'application/health+json; charset=utf-8',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

/** Answers /metrics from `scrape`; the probes never wait for it, whatever it waits for. */
function serveMetrics(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  scrape: () => Promise<MetricsText | null>,
) {
  scrape().then(
    (metrics) => {
      // Stryker disable next-line ConditionalExpression: a write to a destroyed answer goes nowhere; this saves the work.
      if (res.destroyed) return;
      if (!metrics) {
        res
          .writeHead(503, {
            'Content-Type': 'text/plain; charset=utf-8',
            'Cache-Control': 'no-store',
            'Retry-After': '5',
          })
          .end(
            'No metrics right now: the server is starting, or its main thread did not answer within 5 s.\n',
          );
        return;
      }
      res.writeHead(200, {
        'Content-Type': metrics.contentType,
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Content-Length': Buffer.byteLength(metrics.text),
      });
      res.end(metrics.text); // to HEAD, Node writes the headers alone
    },
    () => res.destroy(),
  );
}

/** A slow or stalled client is dropped after this, not after Node's defaults (300 s and 60 s). */
export const SERVER_TIMEOUTS = { requestTimeout: 5000, headersTimeout: 5000 } as const;

export function managementServer(
  { buffer, limits, identity }: ManagementWorkerData,
  scrape: (() => Promise<MetricsText | null>) | null = null,
): http.Server {
  const heartbeat = heartbeatIn(buffer);
  return http.createServer(SERVER_TIMEOUTS, (req, res) => {
    const path = (req.url as string).split('?')[0]; // (a server's request always has one)
    const decide = path === '/livez' ? decideLive : path === '/readyz' ? decideReady : null;
    const metrics = path === '/metrics' ? scrape : null;
    if (!decide && !metrics) {
      res.writeHead(404, HEADERS).end(
        JSON.stringify({
          status: 'fail',
          output: scrape
            ? 'Not found. Try /livez, /readyz or /metrics.'
            : 'Not found. Try /livez or /readyz.',
        }),
      );
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { ...HEADERS, Allow: 'GET, HEAD' })
        .end(JSON.stringify({ status: 'fail', output: 'Use GET.' }));
      return;
    }
    if (metrics) return serveMetrics(req, res, metrics);
    if (!decide) return;
    const report = decide(heartbeat.read(), Date.now(), limits, identity);
    const body = JSON.stringify(report);
    res.writeHead(report.status === 'fail' ? 503 : 200, {
      ...HEADERS,
      'Content-Length': Buffer.byteLength(body),
    });
    res.end(body); // to HEAD, Node writes the headers alone
  });
}

/** Asks the main thread for its metrics over `port`: one question in flight at a time (./scraper). */
function askMainThread(port: MessagePort): () => Promise<MetricsText | null> {
  let answer: ((metrics: MetricsText | null) => void) | null = null;
  port.on('message', (message: ScrapeAnswer) => {
    const settle = answer;
    answer = null;
    settle?.(message.kind === 'metrics' ? { contentType: message.contentType, text: message.text } : null);
  });
  return () =>
    new Promise((resolve) => {
      // A question still unanswered (timed out) gets its answer late; this one waits for the next.
      answer = resolve;
      port.postMessage({ kind: 'scrape' } satisfies ManagementMessage);
    });
}

/**
 * The worker thread's whole job, on `port` to the main thread: listen, say where (or why not, with
 * the error's code), and ask the main thread for /metrics. A function, not module code, so a unit
 * test can run it in-process on a MessageChannel.
 */
export function serveFromWorker(port: MessagePort, data: ManagementWorkerData): http.Server {
  const server = managementServer(data, data.metrics ? scraper(askMainThread(port)) : null);
  server.on('error', (error: NodeJS.ErrnoException) =>
    port.postMessage({
      kind: 'failed',
      message: error.message,
      // Stryker disable next-line ConditionalExpression: a code that is not there reads the same as one left out.
      ...(typeof error.code === 'string' ? { code: error.code } : {}),
    } satisfies ManagementMessage),
  );
  server.listen(data.port, data.host, () => {
    const address = server.address() as AddressInfo;
    port.postMessage({ kind: 'listening', port: address.port } satisfies ManagementMessage);
  });
  return server;
}

if (parentPort && workerData) serveFromWorker(parentPort, workerData as ManagementWorkerData);
