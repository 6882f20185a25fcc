// The main thread's side of ./ingest-worker.ts: one worker per ingest URL, started on the first
// envelope, each send a promise of the ingest's answer. The compiled server (lib/server/start.ts)
// hands the starter to the report queue (../queue/open.ts), which every envelope goes through.
import { Worker } from 'node:worker_threads';
import { inBatches } from './in-batches';
import type {
  IngestAnswer,
  IngestReply,
  IngestRequest,
  IngestSender,
  IngestSenders,
  IngestWorkerData,
  MessageEnd,
} from './ingest-messages';

/** An answer as the SDK's transport hands it back to the SDK, which reads its rate limits. */
export function transportResponseOf(answer: IngestAnswer) {
  return {
    statusCode: answer.status,
    headers: { 'x-sentry-rate-limits': answer.rateLimits, 'retry-after': answer.retryAfter },
  };
}

/** The error a failed send rejects with: a timeout keeps its name, as the forwarder names it. */
function failure(reason: 'timeout' | 'unreachable'): Error {
  const error = new Error(`ingest ${reason}`);
  if (reason === 'timeout') error.name = 'TimeoutError';
  return error;
}

/** A sender over `end`, which an ingest worker answers; `gone` rejects what waits when it ends. */
export function senderOver(end: MessageEnd) {
  let nextId = 0;
  const waiting = new Map<
    number,
    { resolve: (answer: IngestAnswer) => void; reject: (error: Error) => void }
  >();
  end.onMessage((message) => {
    for (const reply of message as IngestReply[]) {
      const waiter = waiting.get(reply.id);
      if (!waiter) continue;
      waiting.delete(reply.id);
      if ('failed' in reply) waiter.reject(failure(reply.failed));
      else {
        const { status, rateLimits, retryAfter, body } = reply;
        waiter.resolve({ status, rateLimits, retryAfter, body });
      }
    }
  });
  const toThread = inBatches<IngestRequest>((requests) => end.postMessage(requests));
  const sender: IngestSender = {
    send: (body, headers) =>
      new Promise((resolve, reject) => {
        nextId += 1;
        waiting.set(nextId, { resolve, reject });
        toThread(headers ? { id: nextId, body, headers } : { id: nextId, body });
      }),
  };
  const gone = (why: string) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(why));
    waiting.clear();
  };
  return { sender, gone };
}

/** Senders backed by one worker thread per URL, running `workerFile`. */
export function workerSenders(workerFile: string): IngestSenders {
  const senders = new Map<string, IngestSender | null>();
  return (url, limits) => {
    if (senders.has(url)) return senders.get(url)!;
    let sender: IngestSender | null = null;
    try {
      const data: IngestWorkerData = { kind: 'ingest', url, ...limits };
      const worker = new Worker(workerFile, { workerData: data });
      const over = senderOver({
        postMessage: (value) => worker.postMessage(value),
        onMessage: (listener) => worker.on('message', listener),
      });
      // Stryker disable next-line ArrowFunction: an error is followed by 'exit', which gives up the same way; this names why first.
      worker.on('error', () => over.gone('ingest thread failed'));
      worker.on('exit', () => {
        over.gone('ingest thread ended');
        // The next envelope sends in-thread rather than into a thread that is gone.
        senders.set(url, null);
      });
      // It never keeps the process alive: what waits is flushed at shutdown by the SDK. After the
      // listeners: a 'message' listener added later refs the thread again.
      worker.unref();
      // Last, so that a thread that could not be set up leaves it null: envelopes send in-thread.
      sender = over.sender;
    } catch {
      // (sender stays null.)
    }
    senders.set(url, sender);
    return sender;
  };
}
