// The production (and development) server: Next's request handler behind a plain node:http server
// that this app owns (./pipeline.ts), so it can drain on SIGTERM, track requests in flight and warm
// up before it says it is ready; `next start` closes at once on SIGTERM, with no drain. `main()`
// reads the settings, builds the pipeline and listens. Compiled by `npm run build`
// (tsconfig.server.json) to dist/lib/server/start.js, which `npm start` runs.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { loadEnvConfig } from '@next/env';
import { appVersion, release, tracesSampleRate, tunnelPath } from '../config/build-values';
import { developmentBundler, webpackInDevelopmentLine } from '../config/development-bundler';
import { installSettings, readSettings, thresholdsOf, type Settings } from '../config/settings';
import { readVariable } from '../config/variables';
import { installGracefulShutdown } from '../lifecycle/graceful-shutdown';
import { shutdownBudgetMs } from '../lifecycle/shutdown-budget';
import { PROBE_PATHS } from '../health/probes';
import { beforeExit, currentPhase, enterPhase } from '../lifecycle/state';
import { pageCacheStoreSlot } from '../health/page-cache-store';
import { captureConsole } from '../log/console';
import { startManagement, type Management } from '../management/listener';
import { guardStream } from '../log/destination';
import { batchLogLines, errorFields, log, setLogLevel } from '../log/logger';
import { reportThroughServerHook } from '../reporting/server-hook';
import { serverMapsSlot } from '../reporting/node/source-mapped-stack';
import { transactionWorkerSlot } from '../reporting/node/transaction-thread';
import type { Metrics } from '../metrics/registry';
import type { Tunnel } from '../reporting/tunnel';
import type { ReportQueue } from '../reporting/queue/queue';
import type { Fleet } from '../fleet/stage';
import {
  adoptBuildValues,
  builtConfigText,
  MAPS_FOLDER,
  nextCompresses,
  parseBuiltConfig,
  servedPath,
  usesShellPageCache,
} from './build-output';
import { CannotStart, cannotStartReason, sayCannotStart } from './cannot-start';
import { createRequestObserver } from './observe-requests';
import { createPipeline, handlerFailed } from './pipeline';
import { healthStage } from '../health/stage';
import { hasProxy, readNotFoundStage } from './not-found';
import { MAX_PUBLIC_ROUTES, readPublicFiles } from './public-files';
import { reportingFileRedirect } from './reporting-file';
import { readProductHeaders } from '../http/product-headers';
import { readWorkerScripts, serviceWorkerStage, type WorkerScripts } from '../service-worker/serve';
import { copyIn } from '../screens/languages';
import { defaultLanguage, offeredLanguages } from '../language/offered';
import { wordsStage } from '../language/words-stage';

// The compiled file sits at dist/lib/server/start.js, three folders below the app's root.
const ROOT = path.resolve(__dirname, '../../..');

/** Asks `server` for `target` once over loopback, so that the first real request does not pay for it. */
function warmUp(server: http.Server, target: string): Promise<void> {
  return new Promise((resolve) => {
    const address = server.address();
    if (!address || typeof address === 'string') return resolve();
    const host = address.address === '0.0.0.0' || address.address === '::' ? '127.0.0.1' : address.address;
    // agent: false: Node's global agent would keep the connection open (and counted against
    // MAX_CONNECTIONS) for seconds after.
    const req = http.get({ host, port: address.port, path: target, timeout: 30_000, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve());
    });
    req.on('timeout', () => req.destroy(new Error('warm-up timed out')));
    req.on('error', (error) => {
      log('warn', 'server.warm_up_failed', { error: errorFields(error) });
      resolve();
    });
  });
}

/**
 * Has Next prepare itself, through its own handler on a loopback listener of its own, before the
 * server says it is ready. In production Next prepares on its first request, not in
 * `app.prepare()`: its instrumentation hook, which starts the Sentry client, runs then. The probes
 * are answered before Next (lib/health/stage.ts), so without this the first visitor would pay for
 * Next's preparation, and the tracer would find no client for the first requests.
 */
async function warmUpNext(handle: (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>) {
  const own = http.createServer((req, res) => void handle(req, res));
  try {
    await new Promise<void>((resolve, reject) => {
      own.once('error', reject);
      own.listen(0, '127.0.0.1', resolve);
    });
    // A route, not a public file: Next streams a public file without preparing (its first request
    // was still untraced after a warm-up on /robots.txt).
    await warmUp(own, PROBE_PATHS.live);
  } catch (error) {
    log('warn', 'server.warm_up_failed', { error: errorFields(error) });
  } finally {
    own.closeAllConnections();
    await new Promise((resolve) => own.close(resolve));
  }
}

/** Reports a process-level error through the reporter instrumentation installed, or logs it. */
function reportProcessError(error: unknown, mechanism: string): void {
  const reference = reportThroughServerHook(error, {
    route: '(process)',
    method: '-',
    status: 500,
    mechanism,
  });
  log('error', `process.${mechanism}`, { ...(reference ? { reference } : {}), error: errorFields(error) });
}

/**
 * Everything the server reads from its environment, read and checked once, before anything else
 * happens: .env files first (the way `next start` loads them, with the same precedence: the
 * process environment wins), then the build's baked-in values, then the settings.
 */
function configure(dev: boolean): { settings: Settings; distDir: string } {
  // (process.env's NODE_ENV is typed read-only; at run time it is a plain property.)
  if (!dev) Object.assign(process.env, { NODE_ENV: 'production' });
  loadEnvConfig(ROOT, dev, {
    info: (...args: unknown[]) => log('info', 'config.env_loaded', { message: args.join(' ').trim() }),
    error: (...args: unknown[]) => log('error', 'config.env_failed', { message: args.join(' ').trim() }),
  });
  const distDir = readVariable('distDir', process.env, []);
  // Before Next loads: asked to start with no build, it would first compile next.config.ts.
  if (!dev && !existsSync(path.join(ROOT, distDir, 'BUILD_ID')))
    throw new CannotStart(
      `No production build in ${distDir}/: run \`npm run build\` first, then \`npm start\`.`,
    );
  adoptBuildValues({ root: ROOT, dev, distDir });
  // Where a server error's stack finds the maps of the bundles it names (none under `npm run dev`,
  // whose Next resolves its own stacks).
  if (!dev)
    serverMapsSlot.write({
      bundles: path.join(ROOT, distDir, 'server'),
      maps: path.join(ROOT, distDir, MAPS_FOLDER, 'server'),
    });
  const settings = readSettings(process.env, { dev });
  installSettings(settings);
  setLogLevel(settings.logLevel);
  // A line per request is the production server's one log cost per request: batched, one write a
  // turn. Under `npm run dev` each line goes out at once, beside Next's own output.
  batchLogLines(!dev);
  return { settings, distDir };
}

/**
 * Under `npm run dev`, the worker that unregisters itself: pages register none there, and a worker
 * left by a production server on the same address must not stand between a developer and reloads.
 */
async function developmentWorker(): Promise<WorkerScripts> {
  const { readCompiled, workerScript } = await import('../service-worker/script');
  const text = workerScript({
    on: false,
    build: { id: 'development', time: 0 },
    compiled: readCompiled(),
    css: '',
    language: copyIn(defaultLanguage()),
    // Off: the worker carries no screen, so none is drawn.
    markup: () => '',
  });
  return new Map([[defaultLanguage(), Buffer.from(text)]]);
}

/**
 * The fleet (lib/fleet/), with FLEET_PEERS set in production: peers are resolved and asked who
 * they are before the server listens, so the first visitors of a new build already find the old one.
 */
async function joinFleet(settings: Settings, distDir: string): Promise<Fleet | null> {
  if (!settings.fleetPeers) return null;
  const [{ createFleet }, { readOwnFiles }, { fleetBuildName }, { servedPrefixes, MAX_BUILD_NAME }] =
    await Promise.all([
      import('../fleet/stage'),
      import('../fleet/own-files'),
      import('../fleet/deployment'),
      import('../fleet/names'),
    ]);
  const buildId = readFileSync(path.join(ROOT, distDir, 'BUILD_ID'), 'utf8').trim();
  const config = parseBuiltConfig(builtConfigText(ROOT, distDir));
  const build = fleetBuildName(buildId, config?.deploymentId);
  if (build === null) {
    log('warn', 'fleet.off', {
      reason: `deploymentId is longer than ${MAX_BUILD_NAME} characters: FLEET_PEERS is left unused; use a shorter deploymentId`,
    });
    return null;
  }
  const fleet = createFleet({
    sources: settings.fleetPeers,
    // A random id per process: how an instance knows itself among the addresses a name resolves to.
    self: {
      build,
      instance: randomBytes(12).toString('base64url'),
    },
    buildId,
    prefixes: servedPrefixes(config?.basePath, config?.assetPrefix),
    ownFiles: readOwnFiles(path.join(ROOT, distDir, 'static')),
    timeoutMs: settings.fleetFetchTimeoutMs,
  });
  await fleet.start();
  const { peers, builds } = fleet.directory.summary();
  log('info', 'fleet.joined', { peers, otherBuilds: builds });
  return fleet;
}

/**
 * The report queue, its envelopes sent from a thread of their own (lib/reporting/ingest/ingest-thread.ts,
 * started with the first of them). What is on its way when the process stops is written first.
 */
async function openQueue(settings: Settings, dsn: string): Promise<ReportQueue> {
  const [{ workerSenders }, { openReportQueue }, { TRANSPORT_LIMITS }] = await Promise.all([
    import('../reporting/ingest/ingest-thread'),
    import('../reporting/queue/open'),
    import('../reporting/node/transport'),
  ]);
  const senders = workerSenders(path.join(__dirname, '../reporting/ingest/ingest-worker.js'));
  const queue = await openReportQueue({
    dsn,
    folder: settings.reportQueueDir ? path.resolve(ROOT, settings.reportQueueDir) : null,
    limits: {
      maxBytes: settings.reportQueueMaxBytes,
      maxEnvelopes: settings.reportQueueMaxEnvelopes,
      maxAgeMs: settings.reportQueueMaxAgeSeconds * 1000,
    },
    senders,
    ingest: { connections: TRANSPORT_LIMITS.connections, timeoutMs: TRANSPORT_LIMITS.timeoutMs },
  });
  beforeExit('report-queue', () => queue.persist(QUEUE_PERSIST_MS));
  const { envelopes } = queue.stats();
  log('info', 'reporting.queue_opened', {
    folder: settings.reportQueueDir ?? null,
    waiting: envelopes.server + envelopes.browser,
  });
  return queue;
}

/** How long writing what is on its way may take at exit (within the shutdown's flush time). */
const QUEUE_PERSIST_MS = 1500;

/** The process's metrics registry, once made: after the server is ready (see main). */
interface MetricsHolder {
  current: Metrics | null;
}

/**
 * The management listener (lib/management/), unless MANAGEMENT_PORT is 0: then no listener and no
 * metrics registry, and requests are not timed for a histogram.
 */
async function manage(settings: Settings, metrics: MetricsHolder): Promise<Management | null> {
  if (settings.managementPort === 0) return null;
  const [{ healthReport }, { processSampler }] = await Promise.all([
    import('../health/report'),
    import('../health/process-checks'),
  ]);
  return startManagement({
    host: settings.host,
    port: settings.managementPort,
    limits: { wedgeMs: settings.livenessWedgeMs, loopDelay: thresholdsOf('eventLoopDelay', settings) },
    identity: { version: appVersion(), releaseId: release() },
    phase: currentPhase,
    loopDelayMs: () => processSampler().latest().eventLoopDelayP99Ms,
    readiness: async () => {
      const report = await healthReport('ready');
      metrics.current?.observeHealth(report);
      return report.status;
    },
    // Until the registry exists, a scrape is answered 503.
    metrics: () => metrics.current?.render() ?? Promise.resolve(null),
  });
}

export async function main({
  dev,
  askedForWebpack = false,
}: {
  dev: boolean;
  /** `npm run dev -- --webpack`. */
  askedForWebpack?: boolean;
}): Promise<void> {
  const { settings, distDir } = configure(dev);
  // Begun first, so probes are answered (alive, not ready) while Next prepares. Its thread boots
  // on another core beside the rest of the start (about 40 ms that every start used to wait for)
  // and is waited for before the server listens, so a port in use still stops the start.
  const metrics: MetricsHolder = { current: null };
  const managing = manage(settings, metrics);
  // (Its failure is met where it is awaited; this keeps it from counting as unhandled meanwhile.)
  managing.catch(() => undefined);
  // The server's envelopes leave from a thread of their own (lib/reporting/ingest/ingest-thread.ts),
  // started with the first of them.
  // Every envelope, the server's own and the tunnel's, goes through one queue that waits out an
  // ingest outage (lib/reporting/queue/).
  const queue = settings.sentryDsn ? await openQueue(settings, settings.sentryDsn) : null;
  const tunnelAt = tunnelPath();
  // Loaded only with a DSN: the tunnel needs @sentry/core (docs/own-server.md, "Start time").
  let tunnel: Tunnel | null = null;
  if (settings.sentryDsn && tunnelAt) {
    const { createTunnel } = await import('../reporting/tunnel');
    tunnel = createTunnel({ dsn: settings.sentryDsn, path: tunnelAt, ...(queue ? { queue } : {}) });
  }

  // Every file, for "Page not found" to leave alone; the metrics' routes take the first few.
  const allPublicFiles = readPublicFiles(ROOT, Infinity);
  const publicFiles: ReadonlySet<string> = new Set([...allPublicFiles].slice(0, MAX_PUBLIC_ROUTES));
  // Server transactions, only with a DSN and a rate above 0 (loads @sentry/core).
  const tracer =
    settings.sentryDsn && tracesSampleRate() > 0
      ? (await import('./trace-requests')).createRequestTracer({
          publicFiles,
          untraced: new Set(Object.values(PROBE_PATHS)),
          sampleRate: tracesSampleRate(),
        })
      : null;

  // With transactions, they are prepared on a thread of their own (lib/reporting/node/transaction-thread.ts),
  // whose file the Sentry client, made when Next prepares, finds here.
  if (tracer) transactionWorkerSlot.write(path.join(__dirname, '../reporting/node/transaction-worker.js'));

  const fleet = dev ? null : await joinFleet(settings, distDir);
  // Next's page cache (lib/page-cache/), opened and handed to Next now, so that its store is connected
  // before the first page asks; closed last, after the last answer. `npm run dev` caches no page; a
  // product that named a cache handler of its own in next.config has its own.
  if (!dev && usesShellPageCache(parseBuiltConfig(builtConfigText(ROOT, distDir)))) {
    const { openPageCache } = await import('../page-cache/handler');
    const closePageCache = openPageCache(path.join(ROOT, distDir, 'server'));
    beforeExit('page-cache', closePageCache);
  }
  // Reports waiting when this instance stops go to a peer, with the deployment's shared secret; a
  // stopping peer's come here. Without peers or the secret, what waits at a stop is counted.
  const handOff = queue ? await import('../reporting/queue/hand-off') : null;
  const handOffSecret = fleet ? settings.reportHandoffSecret : null;
  // A fleet that will lose its waiting reports is told now, not by the stop that loses them.
  const handOffOff = fleet && handOff ? handOff.handOffWarning(settings) : null;
  if (handOffOff) log('warn', handOffOff.event, handOffOff.fields);

  // Loaded after NODE_ENV is settled: Next reads it when it loads.
  const { default: next } = await import('next');
  // Production serves what `next build --webpack` made (docs/webpack-build.md); `npm run dev`
  // compiles with Turbopack, as bare `next dev` does, unless the session needs webpack.
  const bundler = dev
    ? developmentBundler({
        reporting: settings.sentryDsn !== null,
        fixtures: process.env.APP_SHELL_FIXTURES === '1',
        askedForWebpack,
      })
    : null;
  if (bundler?.name === 'webpack')
    log('info', 'server.dev_bundler', {
      bundler: 'webpack',
      message: webpackInDevelopmentLine(bundler.reason),
    });
  const app = next({
    dev,
    dir: ROOT,
    hostname: settings.host,
    port: settings.port,
    ...(bundler?.name === 'turbopack' ? { turbopack: true } : { webpack: true }),
  });
  await app.prepare();
  // Stopped, `next dev` closes its bundler, and Turbopack writes its cache for the next start to
  // read; a custom server's Next does so in close().
  if (dev) beforeExit('next-dev-server', () => app.close());
  const handle = app.getRequestHandler();
  // Begun now, waited for just before ready: the rest of the start overlaps its file reads. Not
  // under `npm run dev`, whose Next prepares in app.prepare(): there a warm-up through a listener
  // of its own left the page without its error overlay and hot reload (dev-server.test.ts).
  const nextWarmed = dev ? null : warmUpNext(handle);
  const pipeline = createPipeline({
    settings,
    dev,
    tunnel,
    observer: createRequestObserver({
      duration: () => metrics.current?.requestDuration ?? null,
      publicFiles,
      quietRoutes: new Set(Object.values(PROBE_PATHS)),
    }),
    reportingFile: dev ? null : reportingFileRedirect(ROOT, distDir),
    tracer,
    fleet,
    words: wordsStage(offeredLanguages()),
    // Under `npm run dev`, Next answers them, so that a change to the checks reloads. So it does
    // when a fixture build's failing dependency checks are on (APP_SHELL_FIXTURE_CHECKS=1, the
    // reliability suite): next.config.ts swaps them into Next's bundle alone.
    // So it does in a build with a proxy (middleware), which may guard or move the probes' paths.
    health:
      dev || process.env.APP_SHELL_FIXTURE_CHECKS === '1' || hasProxy(ROOT, distDir)
        ? null
        : healthStage({
            report: (await import('../health/report')).healthReport,
            failed: handlerFailed,
            servedAt: servedPath(ROOT, distDir),
          }),
    notFound: dev
      ? null
      : readNotFoundStage({
          root: ROOT,
          distDir,
          languages: offeredLanguages(),
          publicFiles: allPublicFiles,
          compress: nextCompresses(ROOT, distDir),
        }),
    reportsHandOff:
      queue && handOff && handOffSecret && settings.sentryDsn
        ? handOff.handOffStage({
            queue,
            secret: handOffSecret,
            dsn: settings.sentryDsn,
            accepting: () => currentPhase() === 'ready',
          })
        : null,
    // The product's headers() as the build compiled them; under `npm run dev` Next answers all but
    // the shell's own few paths, and its rules change without a build.
    productHeaders: dev ? null : readProductHeaders(ROOT, distDir),
    serviceWorker: serviceWorkerStage(
      dev ? await developmentWorker() : readWorkerScripts(ROOT, distDir, offeredLanguages()),
    ),
    next: {
      handle,
      renderError: (req, res, pathname) => app.renderError(null, req, res, pathname, {}),
      upgrade: dev ? app.getUpgradeHandler() : undefined,
    },
  });
  const { server } = pipeline;
  const management = await managing;
  installGracefulShutdown({
    server,
    requests: pipeline.requests,
    drainMs: settings.drainMs,
    shutdownTimeoutMs: settings.shutdownTimeoutMs,
    budgetMs: shutdownBudgetMs(settings),
    stalled: { afterMs: settings.requestTimeoutMs, cut: pipeline.connections.timeOutReceiving },
    // The management listener's /readyz fails with the next beat; beat now instead.
    onDraining: () => management?.refresh(),
    handOver: async () => {
      if (queue && handOff)
        await handOff.handOffReports({
          queue,
          peers: () => (fleet && handOffSecret ? fleet.directory.peerBases() : []),
          secret: handOffSecret ?? '',
          timeoutMs: settings.reportHandoffTimeoutMs,
        });
    },
  });
  server.once('close', () => fleet?.stop());

  await new Promise<void>((resolve, reject) => {
    // Named, so a port in use is said as the setting to change (./cannot-start.ts).
    server.once('error', (error) => reject(Object.assign(error, { setting: 'PORT', host: settings.host })));
    server.listen(settings.port, settings.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  log('info', 'server.listening', { host: settings.host, port, dev });
  // Not under `npm run dev`, where Next answers the probes and would compile the probe's route
  // beside the first page a developer asks for; there, the first probe pays for it.
  await Promise.all([dev ? null : warmUp(server, PROBE_PATHS.live), nextWarmed]);
  enterPhase('ready', { port });
  management?.refresh();
  // Its peers asked who this instance is before it listened; asked again now, each asks back
  // (lib/fleet/directory.ts), so the old build's instances know the new one within a second.
  void fleet?.directory.refresh();
  // After ready, not before: loading prom-client took ~20 ms, which every start (and every
  // replica the autoscaler adds) waited for. Only the warm-up request goes untimed.
  if (management) {
    const { createMetrics } = await import('../metrics/registry');
    metrics.current = createMetrics({
      phase: currentPhase,
      inFlight: pipeline.requests.inFlight,
      version: appVersion(),
      release: release(),
      fleet: fleet ? () => fleet.directory.summary() : undefined,
      reportQueue: queue ? () => queue.stats() : undefined,
      pageCacheStore: pageCacheStoreUp(),
    });
    // Readiness decided now, so the health gauges hold it from the first scrape.
    management.refresh();
  }
}

/** Whether the page cache's store answers, for /metrics; undefined without a store. */
function pageCacheStoreUp(): (() => boolean) | undefined {
  const store = pageCacheStoreSlot.read();
  return store ? () => store.up() : undefined;
}

/** What the process does before main(): logs it can rely on, and errors that do not kill it. */
function installProcessHandlers({ dev }: { dev: boolean }): void {
  // Before anything is written: a log pipe whose reader has gone must not become an uncaught exception.
  guardStream(process.stdout);
  guardStream(process.stderr);
  // Every line JSON in production; `npm run dev` keeps Next's own words for people at a terminal.
  if (!dev) captureConsole();
  // Like `next start`: report and keep serving. (An uncaught exception is not a reason to drop every
  // other request in flight; the orchestrator's liveness probe decides whether the process is wedged.)
  process.on('unhandledRejection', (reason) => reportProcessError(reason, 'unhandled_rejection'));
  process.on('uncaughtException', (error) => reportProcessError(error, 'uncaught_exception'));
}

/** The command line's way in: `npm start` (through scripts/start.js) and `npm run dev`. */
export function runServer({
  dev,
  askedForWebpack = false,
}: {
  dev: boolean;
  askedForWebpack?: boolean;
}): void {
  installProcessHandlers({ dev });
  main({ dev, askedForWebpack }).catch((error: unknown) => {
    const reason = cannotStartReason(error);
    if (reason) sayCannotStart(reason);
    else log('error', 'server.start_failed', { error: errorFields(error) });
    process.exit(1);
  });
}

if (require.main === module)
  runServer({ dev: process.argv.includes('--dev'), askedForWebpack: process.argv.includes('--webpack') });
