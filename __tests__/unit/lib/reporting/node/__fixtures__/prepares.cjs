// A stand-in transaction thread: hands back, for each transaction of a batch, an envelope of one
// transaction whose header is the data the thread was started with; answers a flush done; ends on a transaction named "exit".
const { parentPort, workerData } = require('node:worker_threads');

let id = 0;
parentPort?.on(
  'message',
  (/** @type {{ kind: string, id?: number, event?: { transaction?: string } }[]} */ batch) => {
    const replies = [];
    for (const item of batch) {
      if (item.kind === 'transaction') {
        if (item.event?.transaction === 'exit') process.exit(0);
        id += 1;
        replies.push({ kind: 'send', id, body: `${JSON.stringify(workerData)}\n{"type":"transaction"}\n{}` });
      } else if (item.kind === 'flush') replies.push({ kind: 'flushed', id: item.id, done: true });
    }
    parentPort?.postMessage(replies);
  },
);
