// The servers a benchmark run measures, each started the way its users start it.
const http = require('node:http');
const path = require('node:path');
const { startServerProcess } = require('../../scripts/lib/server-process.js');
const { NEXT_BIN, ROOT } = require('./builds.js');

/**
 * This app's production server (`npm start`).
 * @param {string} distDir  relative to the repository
 * @param {Record<string, string>} [env]
 * @param {{ stdoutFile?: string, port?: number }} [options]  `stdoutFile`: its log lines go to a
 *   file, as a container runtime takes them, rather than to this process, which generates the load.
 *   `port`: one chosen beforehand (a peer must know it before the server starts).
 */
function startApp(distDir, env = {}, { stdoutFile, port } = {}) {
  return startServerProcess({
    command: process.execPath,
    args: [path.join(ROOT, 'dist/lib/server/start.js')],
    cwd: ROOT,
    env: { NEXT_DIST_DIR: distDir, HOST: '127.0.0.1', ...env },
    readyPath: '/api/health/ready',
    stdoutFile,
    port,
  });
}

/**
 * The bare app under `next start`; ready when its empty API route answers.
 * @param {string} dir
 * @param {Record<string, string>} [env]
 */
function startBare(dir, env = {}) {
  return startServerProcess({
    command: process.execPath,
    args: [NEXT_BIN, 'start', '-H', '127.0.0.1', '-p', '{port}'],
    cwd: dir,
    env: { NODE_ENV: 'production', ...env },
    readyPath: '/api/empty',
  });
}

/**
 * The runtime's own limit: node:http answering with the same bytes and headers as /api/health.
 * Runs in this process's event loop would skew the load generator, so it is a child process too.
 * @param {{ body: string, headers: Record<string, string> }} answer
 */
function startNodeHttp(answer) {
  const source = `
    const http = require('node:http');
    const body = Buffer.from(${JSON.stringify(answer.body)});
    const headers = ${JSON.stringify(answer.headers)};
    http.createServer((req, res) => { res.writeHead(200, headers); res.end(body); })
      .listen(Number(process.env.PORT), '127.0.0.1');
  `;
  return startServerProcess({ command: process.execPath, args: ['-e', source], cwd: ROOT, readyPath: '/' });
}

/**
 * Resident memory of a process, from /proc (Linux), in MiB.
 * @param {number | undefined} pid
 */
function rssMiB(pid) {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = Number(status.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]);
    return Number.isFinite(kib) ? kib / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * The exact bytes and headers a URL answers with, to mirror them.
 * @param {string} url
 * @returns {Promise<{ body: string, headers: Record<string, string> }>}
 */
function fetchAnswer(url) {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          /** @type {Record<string, string>} */
          const headers = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (
              typeof value === 'string' &&
              !['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(name)
            )
              headers[name] = value;
          }
          resolve({ body, headers });
        });
      })
      .on('error', reject);
  });
}

/**
 * This app as one instance of a rolling update: `distDir` with FLEET_PEERS naming a second
 * instance that serves another build (`peerDistDir`), and that one naming it back. What is measured
 * of the first is what every deployed replica pays for the fleet.
 * @param {string} distDir @param {string} peerDistDir @param {Record<string, string>} [env]
 * @param {{ stdoutFile?: string }} [options]  as startApp's, for the measured instance
 */
async function startAppInFleet(distDir, peerDistDir, env = {}, { stdoutFile } = {}) {
  const { choosingPortsAgain, freePort } = require('../../scripts/lib/server-process.js');
  // Both ports are chosen before either starts (each names the other), so one can be taken before
  // its server listens: then both are chosen again.
  return choosingPortsAgain(async () => {
    const [port, peerPort] = await Promise.all([freePort(), freePort()]);
    const peers = `http://127.0.0.1:${port},http://127.0.0.1:${peerPort}`;
    const peer = await startApp(peerDistDir, { FLEET_PEERS: peers, LOG_LEVEL: 'warn' }, { port: peerPort });
    try {
      return inFleet(await startApp(distDir, { ...env, FLEET_PEERS: peers }, { port, stdoutFile }), peer);
    } catch (error) {
      await peer.stop();
      throw error;
    }
  });
}

/**
 * @param {Awaited<ReturnType<typeof startApp>>} app @param {Awaited<ReturnType<typeof startApp>>} peer
 */
function inFleet(app, peer) {
  return {
    ...app,
    peer,
    stop: async () => {
      const [code] = await Promise.all([app.stop(), peer.stop()]);
      return code;
    },
  };
}

module.exports = { startApp, startAppInFleet, startBare, startNodeHttp, rssMiB, fetchAnswer };
