// A stand-in management worker that listens and stays.
const { parentPort, workerData } = require('node:worker_threads');

parentPort?.postMessage({ kind: 'listening', port: workerData.port || 1 });
setInterval(() => {}, 1000);
