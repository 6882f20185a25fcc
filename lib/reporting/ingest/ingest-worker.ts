// The thread that talks to the ingest: the server's envelopes are posted here as bytes, and each
// answer (status and rate-limit headers) goes back to ./transport.ts, so that a request's thread
// pays a message, not an HTTP client exchange (about 300 µs of CPU an envelope: bench/README.md,
// "Tracing at rate 1"). Compiled to dist/lib/reporting/ingest/ingest-worker.js beside the server,
// which starts it (./ingest-thread.ts).
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { inBatches } from './in-batches';
import { createIngestForwarder, failureReason, MAX_PASSED_BACK_BODY, type UpstreamAnswer } from './forward';
import type {
  IngestAnswer,
  IngestLimits,
  IngestReply,
  IngestRequest,
  IngestWorkerData,
  MessageEnd,
} from './ingest-messages';

export const ENVELOPE_HEADERS = { 'Content-Type': 'application/x-sentry-envelope' };
/** What Sentry's security endpoint takes (../tunnel/security-reports.ts): one CSP report. */
export const SECURITY_REPORT_HEADERS = { 'Content-Type': 'application/csp-report' };

/** The content type an ingest URL takes: a CSP report at the security endpoint, else an envelope. */
export function bodyHeadersFor(url: URL): Record<string, string> {
  return url.pathname.endsWith('/security/') ? SECURITY_REPORT_HEADERS : ENVELOPE_HEADERS;
}

/** What of the ingest's answer is read: its status and rate limits (the SDK), a short body (the tunnel). */
export function answerOf(upstream: UpstreamAnswer): IngestAnswer {
  return {
    status: upstream.status,
    rateLimits: upstream.headers['x-sentry-rate-limits'] ?? null,
    retryAfter: upstream.headers['retry-after'] ?? null,
    body: upstream.body.slice(0, MAX_PASSED_BACK_BODY),
  };
}

/**
 * Sends envelopes to one ingest from the calling thread: this worker's own way, and the main
 * thread's when no worker runs (unit tests). Rejects as the forwarder does.
 */
export function sendFromThisThread(url: string, limits: IngestLimits) {
  const ingest = new URL(url);
  const forwarder = createIngestForwarder(ingest, limits.connections);
  const bodyHeaders = bodyHeadersFor(ingest);
  return (body: string | Uint8Array, headers: Record<string, string> = {}): Promise<IngestAnswer> =>
    forwarder.send(body, { ...headers, ...bodyHeaders }, { timeoutMs: limits.timeoutMs }).then(answerOf);
}

/** Sends each envelope that arrives on `port`, and answers on it, a turn's answers at once. Never throws. */
export function answerIngestRequests(port: MessageEnd, data: IngestWorkerData): void {
  const send = sendFromThisThread(data.url, data);
  const reply = inBatches<IngestReply>((replies) => {
    try {
      port.postMessage(replies);
    } catch {
      // The parent is gone: nothing waits for the answers.
    }
  });
  port.onMessage((message) => {
    for (const { id, body, headers } of message as IngestRequest[]) {
      send(body, headers).then(
        (answer) => reply({ id, ...answer }),
        (error: unknown) => reply({ id, failed: failureReason(error) }),
      );
    }
  });
}

// Stryker disable all: the thread's entry, run only as a worker (the e2e and reliability tests'
// server starts it); its work is answerIngestRequests, tested on a MessageChannel.
if (!isMainThread && parentPort && (workerData as Partial<IngestWorkerData> | null)?.kind === 'ingest') {
  const parent = parentPort;
  answerIngestRequests(
    {
      postMessage: (value) => parent.postMessage(value),
      onMessage: (listener) => parent.on('message', listener),
    },
    workerData as IngestWorkerData,
  );
}
// Stryker restore all
