// The request's thread's side of ./transaction-worker.ts: finished transactions go to a thread of
// their own, which prepares each (the SDK's event processing, the scrub, the envelope) and hands
// the envelope back; this side delivers it the way the server's own envelopes go (through the
// report queue: ./transport.ts), answers the thread with the ingest's answer, and counts what the
// thread counted. The compiled server (lib/server/start.ts) names the thread's file in a slot; with
// none (unit tests, `next start`), transactions are prepared on the request's thread.
import { Worker } from 'node:worker_threads';
import type { Event, TransportMakeRequestResponse } from '@sentry/core';
import type { TransactionOutcome } from '../../metrics/record';
import { processSlot } from '../../process/slots';
import { inBatches } from '../ingest/in-batches';
import type { MessageEnd } from '../ingest/ingest-messages';
import { countDrop, type Counts } from './counts';
import type { SentryConfig, TransactionOffload } from './server-client';
import type { Delivery, DropRecorder } from './transport';

/** The compiled thread's file (dist/lib/reporting/node/transaction-worker.js), once the server named it. */
export const transactionWorkerSlot = processSlot<string>('transaction-worker');

/**
 * Transactions handed to the thread and not yet taken by it. SECURITY: bounds the memory a burst
 * of traced requests holds when the thread falls behind (a stranger's requests are traced too);
 * past it a transaction is dropped as `queue_overflow`, as the transport drops past its own bounds.
 */
export const MAX_WAITING_TRANSACTIONS = 1024;

export interface TransactionWorkerData {
  kind: 'transactions';
  config: SentryConfig;
}

/** To the thread. */
export type ToThread =
  | { kind: 'transaction'; event: Event }
  | { kind: 'flush'; id: number; timeoutMs: number }
  | { kind: 'answer'; id: number; response: TransportMakeRequestResponse }
  | { kind: 'answer'; id: number; failed: true };

/** From the thread. */
export type FromThread =
  | { kind: 'send'; id: number; body: string | Uint8Array }
  | { kind: 'count'; outcome: TransactionOutcome; reason: string }
  | { kind: 'flushed'; id: number; done: boolean }
  /** How many of the transactions handed over the thread has taken. */
  | { kind: 'taken'; count: number };

export interface TransactionThread extends TransactionOffload {
  /** Resolves once what the thread holds is delivered (true), or at `timeoutMs` or its end (false). */
  flush: (timeoutMs: number) => Promise<boolean>;
}

/**
 * This side, over `end`: `deliver` takes each envelope the thread hands back (to the ingest: the
 * report queue), `counts` what the thread counted and what is dropped on the way. `gone` when the
 * thread ends: nothing more is posted (the client prepares on its own thread again) and a flush
 * waits no more.
 */
export function transactionsOver(
  end: MessageEnd,
  deliver: Delivery,
  counts: Counts,
  maxWaiting = MAX_WAITING_TRANSACTIONS,
) {
  const dropped: DropRecorder = (reason, category) => countDrop(counts, reason, category);
  let ended = false;
  let waiting = 0;
  let nextFlush = 0;
  const flushes = new Map<number, (done: boolean) => void>();
  const toThread = inBatches<ToThread>((batch) => {
    try {
      end.postMessage(batch);
    } catch {
      // The thread is gone (its 'exit' ends this side too), or a value could not be copied: the
      // transactions of the batch are lost, and counted so.
      for (const item of batch)
        if (item.kind === 'transaction') counts.transaction('dropped', 'internal_sdk_error');
    }
  });
  end.onMessage((message) => {
    for (const item of message as FromThread[]) {
      if (item.kind === 'send') {
        const { id } = item;
        deliver(item.body, dropped).then(
          (response) => toThread({ kind: 'answer', id, response }),
          () => toThread({ kind: 'answer', id, failed: true }),
        );
      } else if (item.kind === 'taken') {
        waiting -= item.count;
      } else if (item.kind === 'count') {
        counts.transaction(item.outcome, item.reason);
      } else {
        flushes.get(item.id)?.(item.done);
        flushes.delete(item.id);
      }
    }
  });
  const thread: TransactionThread = {
    post: (event) => {
      if (ended) return false;
      if (waiting >= maxWaiting) counts.transaction('dropped', 'queue_overflow');
      else {
        waiting += 1;
        toThread({ kind: 'transaction', event });
      }
      return true;
    },
    flush: (timeoutMs) => {
      if (ended) return Promise.resolve(false);
      // Stryker disable next-line AssignmentOperator: ids only need to differ.
      nextFlush += 1;
      const id = nextFlush;
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          flushes.delete(id);
          resolve(false);
        }, timeoutMs);
        flushes.set(id, (done) => {
          clearTimeout(timer);
          resolve(done);
        });
        toThread({ kind: 'flush', id, timeoutMs });
      });
    },
  };
  const gone = () => {
    ended = true;
    for (const resolve of flushes.values()) resolve(false);
    flushes.clear();
  };
  return { thread, gone };
}

/**
 * The thread, running `workerFile`, or null when it cannot start (transactions are then prepared
 * on the request's thread). It never keeps the process alive: what it holds is flushed at exit.
 */
export function startTransactionThread(
  workerFile: string,
  config: SentryConfig,
  deliver: Delivery,
  counts: Counts,
): TransactionThread | null {
  try {
    const data: TransactionWorkerData = { kind: 'transactions', config };
    const worker = new Worker(workerFile, { workerData: data });
    const over = transactionsOver(
      {
        postMessage: (value) => worker.postMessage(value),
        onMessage: (listener) => worker.on('message', listener),
      },
      deliver,
      counts,
    );
    // Stryker disable next-line ArrowFunction: an error is followed by 'exit', which ends this side the same way.
    worker.on('error', () => over.gone());
    worker.on('exit', () => over.gone());
    // After the listeners: a 'message' listener added later refs the thread again.
    worker.unref();
    return over.thread;
  } catch {
    return null;
  }
}
