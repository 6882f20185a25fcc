// The production (and development) server: Next's request handler behind a plain node:http server
// that this app owns, so it can drain on SIGTERM, track in-flight requests and warm up before it
// says it is ready; `next start` closes at once on SIGTERM, with no drain. Compiled by
// `npm run build` (tsconfig.server.json) to dist/lib/server/start.js, which `npm start` runs.
import http from 'node:http';
import path from 'node:path';
import { loadEnvConfig } from '@next/env';
import { tunnelPath } from '../config/build-values';
import { installSettings, readSettings, type Settings } from '../config/settings';
import { sendProblem } from '../http/problem';
import { boundQuery, isApiPath } from '../http/query-bound';
import { securityHeaderSetter } from '../http/security-headers';
import { installGracefulShutdown } from '../lifecycle/graceful-shutdown';
import { enterPhase } from '../lifecycle/state';
import { guardStream, log } from '../log/json-line';
import { rememberResponse } from '../reporting/node/answered-status';
import { reportThroughServerHook } from '../reporting/node/hook';
import type { Tunnel } from '../reporting/tunnel';
import { readApiRoutes } from './api-routes';
import { adoptBuildValues } from './build-output';
import { limitConnections } from './connection-limit';
import { answeredBeforeNext, installGuards, refuseTooManyParams, refuseUpgrades } from './guards';

// The compiled file sits at dist/lib/server/start.js, three folders below the app's root.
const ROOT = path.resolve(__dirname, '../../..');
const dev = process.argv.includes('--dev');

/** The build's folder, read after .env files are loaded (NEXT_DIST_DIR may come from one). */
const distDir = () => process.env.NEXT_DIST_DIR || '.next';

/** Loads the health route once over loopback, so the first real probe does not pay for it. */
function warmUp(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    const address = server.address();
    if (!address || typeof address === 'string') return resolve();
    const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
    // agent: false: Node's global agent would keep the connection open (and counted against
    // MAX_CONNECTIONS) for seconds after.
    const req = http.get(
      { host, port: address.port, path: '/api/health/live', timeout: 30_000, agent: false },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('timeout', () => req.destroy(new Error('warm-up timed out')));
    req.on('error', (error) => {
      log('warn', 'server.warm_up_failed', { message: error.message });
      resolve();
    });
  });
}

/** Reports a process-level error through the reporter instrumentation installed, or logs it. */
function reportProcessError(error: unknown, mechanism: string): void {
  const reported = reportThroughServerHook(error, {
    route: '(process)',
    method: '-',
    status: 500,
    mechanism,
  });
  if (!reported) log('error', `process.${mechanism}`, { message: String(error) });
}

/**
 * Everything the server reads from its environment, read and checked once, before anything else
 * happens: .env files first (the way `next start` loads them, with the same precedence: the
 * process environment wins), then the build's baked-in values, then the settings.
 */
function configure(): Settings {
  // (process.env's NODE_ENV is typed read-only; at run time it is a plain property.)
  if (!dev) Object.assign(process.env, { NODE_ENV: 'production' });
  loadEnvConfig(ROOT, dev, {
    info: (...args: unknown[]) => log('info', 'config.env_loaded', { message: args.join(' ').trim() }),
    error: (...args: unknown[]) => log('error', 'config.env_failed', { message: args.join(' ').trim() }),
  });
  adoptBuildValues({
    root: ROOT,
    dev,
    distDir: distDir(),
    standaloneConfigPath: path.join(ROOT, 'standalone-config.json'),
  });
  const settings = readSettings(process.env);
  installSettings(settings);
  return settings;
}

async function main() {
  const settings = configure();
  const tunnelAt = tunnelPath();
  // Loaded only with a DSN: the tunnel needs @sentry/core, which takes ~100 ms to load.
  let tunnel: Tunnel | null = null;
  if (settings.sentryDsn && tunnelAt) {
    const { createTunnel } = await import('../reporting/tunnel');
    tunnel = createTunnel({ dsn: settings.sentryDsn, path: tunnelAt });
  }

  // Loaded after NODE_ENV is settled: Next reads it when it loads.
  const { default: next } = await import('next');
  const app = next({
    dev,
    dir: ROOT,
    hostname: settings.host,
    port: settings.port,
    webpack: true,
    quiet: false,
  });
  await app.prepare();
  const handle = app.getRequestHandler();
  const isApiRoute = dev ? null : readApiRoutes(ROOT, distDir());

  // Every response carries the security headers, whoever writes it (Next, the tunnel, the guards).
  const setSecurityHeaders = securityHeaderSetter({ dev });
  // Node's own Host check answers without the security headers; guards.ts checks instead.
  const server = http.createServer(
    {
      requireHostHeader: false,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: settings.connectionsCheckIntervalMs,
    },
    (req, res) => {
      setSecurityHeaders(res);
      if (answeredBeforeNext(req, res)) return;
      // SECURITY: Next's cost for a query grows with the square of its parameters; bound it first.
      const query = boundQuery(req.url ?? '/');
      if (query.kind === 'too-many') {
        req.url = query.path;
        refuseTooManyParams(req, res, () => app.renderError(null, req, res, query.path, {}));
        return;
      }
      req.url = query.url;
      // One string comparison is all other requests pay for the tunnel.
      if (tunnel?.matches(req.url)) {
        void tunnel.handle(req, res);
        return;
      }
      if (isApiRoute && isApiPath(query.path) && !isApiRoute(query.path)) {
        sendProblem(res, 404, 'No API route answers this path.', { method: req.method });
        return;
      }
      // So that a reported error can learn how its request was answered.
      rememberResponse(req, res);
      handle(req, res).catch((error: unknown) => {
        log('error', 'server.unhandled_request_error', { message: String(error) });
        if (!res.headersSent) {
          res.statusCode = 500;
          res.end();
        } else {
          res.destroy();
        }
      });
    },
  );
  installGuards(server);
  limitConnections(server, settings.maxConnections);
  if (dev) server.on('upgrade', app.getUpgradeHandler());
  else refuseUpgrades(server);

  installGracefulShutdown({
    server,
    drainMs: settings.drainMs,
    shutdownTimeoutMs: settings.shutdownTimeoutMs,
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  log('info', 'server.listening', { host: settings.host, port, dev });
  await warmUp(server);
  enterPhase('ready', { port });
}

// Before anything is written: a log pipe whose reader has gone must not become an uncaught exception.
guardStream(process.stdout);
guardStream(process.stderr);

// Like `next start`: report and keep serving. (An uncaught exception is not a reason to drop every
// other request in flight; the orchestrator's liveness probe decides whether the process is wedged.)
process.on('unhandledRejection', (reason) => reportProcessError(reason, 'unhandled_rejection'));
process.on('uncaughtException', (error) => reportProcessError(error, 'uncaught_exception'));

main().catch((error: unknown) => {
  log('error', 'server.start_failed', { message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
