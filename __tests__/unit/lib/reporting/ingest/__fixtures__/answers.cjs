// A stand-in ingest thread: answers each request of a batch 200, its body naming the URL and the
// limits the thread was started with, and ends when a body says "exit".
const { parentPort, workerData } = require('node:worker_threads');

parentPort?.on('message', (/** @type {{ id: number, body: string }[]} */ batch) => {
  if (batch.some(({ body }) => body === 'exit')) process.exit(0);
  parentPort?.postMessage(
    batch.map(({ id }) => ({
      id,
      status: 200,
      rateLimits: null,
      retryAfter: null,
      body: JSON.stringify(workerData),
    })),
  );
});
