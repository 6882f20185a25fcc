// The thread that prepares the server's transactions (./transaction-thread.ts is the request's
// thread's side): a client made as the request's thread makes its own (./server-client.ts) takes
// each finished transaction through the SDK's event processing, the scrub and the envelope, which
// cost a traced page about a fifth of its CPU on the request's thread (bench/README.md, "A traced
// request"). Its transport hands each envelope back to be delivered through the report queue,
// which lives on the request's thread, and gets the ingest's answer, so the SDK's rate limits and
// buffer work here as they do there. Compiled to dist/lib/reporting/node/transaction-worker.js
// beside the server, which names it (lib/server/start.ts).
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { Scope, type TransportMakeRequestResponse } from '@sentry/core';
import type { MessageEnd } from '../ingest/ingest-messages';
import type { Counts } from './counts';
import { createServerClient } from './server-client';
import { inBatches } from '../ingest/in-batches';
import type { FromThread, ToThread, TransactionWorkerData } from './transaction-thread';
import { makeServerTransport, type Delivery } from './transport';

/** Prepares each transaction that arrives on `port`, and hands its envelope back on it. Never throws. */
export function prepareTransactions(port: MessageEnd, data: TransactionWorkerData): void {
  const toParent = inBatches<FromThread>((batch) => {
    try {
      port.postMessage(batch);
    } catch {
      // The parent is gone: nothing waits for what this thread says.
    }
  });
  const counts: Counts = {
    // The thread prepares transactions only: an error report is never handed to it.
    report: () => undefined,
    transaction: (outcome, reason) => toParent({ kind: 'count', outcome, reason }),
  };
  let nextId = 0;
  const waiting = new Map<
    number,
    { resolve: (response: TransportMakeRequestResponse) => void; reject: (error: Error) => void }
  >();
  // A drop on the way (the queue full) the request's thread counted as it answered `{}`.
  const toParentThread: Delivery = (body) =>
    new Promise((resolve, reject) => {
      // Stryker disable next-line AssignmentOperator: ids only need to differ.
      nextId += 1;
      waiting.set(nextId, { resolve, reject });
      toParent({ kind: 'send', id: nextId, body });
    });
  const client = createServerClient(
    data.config,
    counts,
    makeServerTransport(undefined, () => toParentThread),
  );
  client.init();
  port.onMessage((message) => {
    for (const item of message as ToThread[]) {
      if (item.kind === 'transaction') {
        toParent({ kind: 'taken', count: 1 });
        // Under the id it has (./server-client.ts), with a scope of its own: what the SDK would
        // take from the request's thread's scopes is in the event already (its trace context, its
        // sampling context).
        client.captureEvent(item.event, undefined, new Scope());
      } else if (item.kind === 'answer') {
        const waiter = waiting.get(item.id);
        waiting.delete(item.id);
        // (The SDK counts a rejection as a network error, whatever it says.)
        if ('failed' in item) waiter?.reject(new Error());
        else waiter?.resolve(item.response);
      } else {
        const { id } = item;
        void client.flush(item.timeoutMs).then((done) => toParent({ kind: 'flushed', id, done }));
      }
    }
  });
}

// Stryker disable all: the thread's entry, run only as a worker (the e2e tests' tracing server
// starts it); its work is prepareTransactions, tested on a MessageChannel.
if (
  !isMainThread &&
  parentPort &&
  (workerData as Partial<TransactionWorkerData> | null)?.kind === 'transactions'
) {
  const parent = parentPort;
  prepareTransactions(
    {
      postMessage: (value) => parent.postMessage(value),
      onMessage: (listener) => parent.on('message', listener),
    },
    workerData as TransactionWorkerData,
  );
}
// Stryker restore all
