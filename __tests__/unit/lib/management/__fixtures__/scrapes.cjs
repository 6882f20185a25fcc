// A stand-in management worker that asks for one scrape and writes the main thread's answer to the
// file the test names as the release id (the one value of workerData a test chooses freely).
const { writeFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');

parentPort?.on('message', (answer) => writeFileSync(workerData.identity.releaseId, JSON.stringify(answer)));
parentPort?.postMessage({ kind: 'listening', port: workerData.port || 1 });
parentPort?.postMessage({ kind: 'scrape' });
setInterval(() => {}, 1000);
