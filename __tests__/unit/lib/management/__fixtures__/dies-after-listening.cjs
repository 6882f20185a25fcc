// A stand-in management worker: says it listens, then dies, as a worker that crashed would.
const { parentPort, workerData } = require('node:worker_threads');

parentPort?.postMessage({ kind: 'listening', port: workerData.port || 1 });
setTimeout(() => process.exit(3), 20);
