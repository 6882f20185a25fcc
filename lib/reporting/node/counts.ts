// What the server's Sentry client counts, and where: the metrics (lib/metrics/record.ts) on the
// request's thread, or the transaction thread's relay to them (./transaction-worker.ts). Apart from
// ./server-client.ts, which loads @sentry/core: the compiled server imports ./transaction-thread.ts,
// which uses these, at every start, DSN or not.
import type { DataCategory, EventDropReason } from '@sentry/core';
import type { ReportOutcome, TransactionOutcome } from '../../metrics/record';

/** Where the counts go: the metrics (lib/metrics/record.ts), or the thread that holds them. */
export interface Counts {
  report: (outcome: ReportOutcome, reason: string) => void;
  transaction: (outcome: TransactionOutcome, reason: string) => void;
}

/** A drop the SDK or the transport names, counted by what was dropped (a transaction's spans are its own). */
export function countDrop(counts: Counts, reason: EventDropReason, category: DataCategory): void {
  if (category === 'error') counts.report('dropped', reason);
  else if (category === 'transaction') counts.transaction('dropped', reason);
}
