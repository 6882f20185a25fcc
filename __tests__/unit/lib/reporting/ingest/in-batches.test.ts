// One message per turn of the event loop between threads (lib/reporting/ingest/in-batches.ts).
import { inBatches } from '@lib/reporting/ingest/in-batches';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

it('posts what is queued in one turn as one batch, in order, and nothing in a turn with none', async () => {
  const posted: number[][] = [];
  const queue = inBatches<number>((batch) => posted.push(batch));
  queue(1);
  queue(2);
  queue(3);
  expect(posted).toEqual([]);
  await nextTurn();
  expect(posted).toEqual([[1, 2, 3]]);
  await nextTurn();
  queue(4);
  await nextTurn();
  await nextTurn();
  expect(posted).toEqual([[1, 2, 3], [4]]);
});
