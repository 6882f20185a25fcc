// What a thread hands another in one turn of the event loop goes as one message: a message costs
// the thread that posts it more than the bytes it carries. Used by both sides of the ingest thread
// (./ingest-thread.ts, ./ingest-worker.ts) and of the transaction thread (../node/transaction-thread.ts,
// ../node/transaction-worker.ts).

/** A function that queues `item`; what was queued in this turn goes to `post` as one batch, in order. */
export function inBatches<T>(post: (batch: T[]) => void): (item: T) => void {
  let batch: T[] = [];
  return (item) => {
    if (batch.length === 0)
      setImmediate(() => {
        const items = batch;
        batch = [];
        post(items);
      });
    batch.push(item);
  };
}
