// A stand-in management worker whose port is taken: says so, as the real one does.
const { parentPort } = require('node:worker_threads');

parentPort?.postMessage({
  kind: 'failed',
  message: 'listen EADDRINUSE: address already in use',
  code: 'EADDRINUSE',
});
setInterval(() => {}, 1000);
