// A stand-in management worker that listens and dies the first time, and fails to load when it is
// started again (the file the test names as the release id tells the two apart).
const { existsSync, writeFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');

if (existsSync(workerData.identity.releaseId)) throw new Error('the worker could not load again');
writeFileSync(workerData.identity.releaseId, 'started once');
parentPort?.postMessage({ kind: 'listening', port: workerData.port || 1 });
setTimeout(() => process.exit(3), 20);
