// A stand-in management worker: at its first start it dies soon after it says it listens; started
// again, it stays, and marks each 10 ms it is alive. It writes what it was given beside the file
// named as its release id.
const { appendFileSync, existsSync, writeFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');

const base = workerData.identity.releaseId;
const first = !existsSync(`${base}.started`);
writeFileSync(`${base}.started`, '');
writeFileSync(`${base}.data`, JSON.stringify({ metrics: workerData.metrics }));
parentPort?.postMessage({ kind: 'listening', port: workerData.port || 1 });
if (first) setTimeout(() => process.exit(3), 20);
else setInterval(() => appendFileSync(`${base}.ticks`, 'x'), 10);
