#!/usr/bin/env node
// The production (and development) server: Next's request handler behind a plain node:http server
// that this app owns, so it can drain on SIGTERM, track in-flight requests and warm up before it
// says it is ready. `next start` closes at once on SIGTERM, with no drain.
const fs = require('node:fs');
const http = require('node:http');
const path = require('node:path');
const { readServerConfig } = require('../config/server.js');
const { securityHeaderSetter } = require('../http/security-headers.js');
const { readBuildSettings, serverDsn } = require('./build-settings.js');
const { answeredBeforeNext, installGuards, refuseUpgrades } = require('./guards.js');
const { installGracefulShutdown } = require('../lifecycle/graceful-shutdown.js');
const { enterPhase } = require('../lifecycle/state.js');
const { log } = require('../log/json-line.js');

const ROOT = path.resolve(__dirname, '../..');
const dev = process.argv.includes('--dev');
// Written by scripts/assemble-standalone.sh into the container image only.
const STANDALONE_CONFIG = path.join(__dirname, 'standalone-config.json');

/**
 * In the container image there is no build tooling to load next.config.js with. Next's own
 * standalone server.js passes the build's resolved config through this variable; so do we.
 */
function applyStandaloneConfigIfPresent() {
  if (dev || !fs.existsSync(STANDALONE_CONFIG)) return;
  process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = fs.readFileSync(STANDALONE_CONFIG, 'utf8');
}

/**
 * Loads the health route once over loopback, so the first real probe does not pay for it.
 * @param {http.Server} server
 */
function warmUp(server) {
  return new Promise((resolve) => {
    const address = server.address();
    if (!address || typeof address === 'string') return resolve(undefined);
    const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
    const req = http.get({ host, port: address.port, path: '/api/health/live', timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(undefined));
    });
    req.on('timeout', () => req.destroy(new Error('warm-up timed out')));
    req.on('error', (error) => {
      log('warn', 'server.warm_up_failed', { message: error.message });
      resolve(undefined);
    });
  });
}

/**
 * Reports a process-level error through the reporter instrumentation installed, or logs it.
 * @param {unknown} error
 * @param {string} mechanism
 */
function reportProcessError(error, mechanism) {
  const KEY = Symbol.for('app-shell.report-server-error');
  const reporter =
    /** @type {Record<symbol, ((e: unknown, c: object) => string | undefined) | undefined>} */ (
      /** @type {unknown} */ (globalThis)
    )[KEY];
  let reported;
  try {
    reported = reporter?.(error, { route: '(process)', method: '-', status: 500, mechanism });
  } catch {
    // fall through to the log line
  }
  if (!reported) log('error', `process.${mechanism}`, { message: String(error) });
}

async function main() {
  const config = readServerConfig();
  const build = readBuildSettings({
    root: ROOT,
    dev,
    env: process.env,
    standaloneConfigPath: STANDALONE_CONFIG,
  });
  const dsn = serverDsn(process.env, build);
  // instrumentation.ts reads it from here once Next has loaded.
  if (dsn) process.env.SENTRY_DSN = dsn;
  const tunnelPath = build.APP_SENTRY_TUNNEL_PATH;
  // Required only with a DSN: the tunnel loads @sentry/core, which takes ~100 ms to load.
  const tunnel =
    dsn && tunnelPath ? require('../reporting/tunnel.js').createTunnel({ dsn, path: tunnelPath }) : null;

  // (process.env's NODE_ENV is typed read-only; at run time it is a plain property.)
  if (!dev) Object.assign(process.env, { NODE_ENV: 'production' });
  applyStandaloneConfigIfPresent();
  // Required after NODE_ENV is settled: Next reads it when it loads.
  const nextModule = require('next');
  // The package's CommonJS export is the factory itself; its types describe it as `default`.
  const next = /** @type {typeof nextModule.default} */ (
    /** @type {unknown} */ (nextModule.default ?? nextModule)
  );
  const app = next({ dev, dir: ROOT, hostname: config.host, port: config.port, webpack: true, quiet: false });
  await app.prepare();
  const handle = app.getRequestHandler();

  // Every response carries the security headers, whoever writes it (Next, the tunnel, the guards).
  const setSecurityHeaders = securityHeaderSetter({ dev });
  // Node's own Host check answers without the security headers; guards.js checks instead.
  const server = http.createServer({ requireHostHeader: false }, (req, res) => {
    setSecurityHeaders(res);
    if (answeredBeforeNext(req, res)) return;
    // One string comparison is all other requests pay for the tunnel.
    if (tunnel?.matches(req.url)) {
      void tunnel.handle(req, res);
      return;
    }
    handle(req, res).catch((/** @type {unknown} */ error) => {
      log('error', 'server.unhandled_request_error', { message: String(error) });
      if (!res.headersSent) {
        res.statusCode = 500;
        res.end();
      } else {
        res.destroy();
      }
    });
  });
  installGuards(server);
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.headersTimeout = config.keepAliveTimeoutMs + 1000;
  if (dev) server.on('upgrade', app.getUpgradeHandler());
  else refuseUpgrades(server);

  installGracefulShutdown({ server, drainMs: config.drainMs, shutdownTimeoutMs: config.shutdownTimeoutMs });

  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve(undefined));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  log('info', 'server.listening', { host: config.host, port, dev });
  await warmUp(server);
  enterPhase('ready', { port });
}

// Like `next start`: report and keep serving. (An uncaught exception is not a reason to drop every
// other request in flight; the orchestrator's liveness probe decides whether the process is wedged.)
process.on('unhandledRejection', (reason) => reportProcessError(reason, 'unhandled_rejection'));
process.on('uncaughtException', (error) => reportProcessError(error, 'uncaught_exception'));

main().catch((error) => {
  log('error', 'server.start_failed', { message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
