import path from 'node:path';
import type { NextConfig } from 'next';
import { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_SERVER } from 'next/constants';
// Next compiles this file and what it imports (lib/config) itself: nothing here needs dist/.
import { assetBase, assetUrl, cdnAssetPrefixWarning } from './lib/config/asset-urls';
import { buildTimeEnv } from './lib/config/build-time';
import { turbopackInDevelopment } from './lib/config/development-bundler';
import { readVariable } from './lib/config/variables';

/**
 * Pages are TypeScript (`.tsx`, `.ts`). Fixture pages (`*.fixture.jsx`) throw on purpose for the
 * end-to-end tests; they are routes only in the test build, which sets APP_SHELL_FIXTURES=1 and
 * builds into its own folder. Their extension is one the production build never routes: a
 * `*.fixture.tsx` would still end in `.tsx` and ship.
 */
const withFixtures = process.env.APP_SHELL_FIXTURES === '1';

/**
 * The values inlined into every bundle, read and checked once; a bad value stops the build with
 * one line.
 */
function inlinedEnv(dev: boolean) {
  try {
    return buildTimeEnv(process.env, { dev, root: __dirname });
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

/** Where the build goes, and whether it is the container's standalone folder; checked the same way. */
function buildFolder() {
  const problems: string[] = [];
  const folder = {
    distDir: readVariable('distDir', process.env, problems),
    output: readVariable('output', process.env, problems),
    typecheck: readVariable('typecheck', process.env, problems),
    traces: readVariable('traces', process.env, problems),
  };
  if (folder.traces === 'off' && folder.output === 'standalone')
    problems.push('NEXT_TRACES=off cannot build NEXT_OUTPUT=standalone, which is made from the traces');
  if (problems.length > 0) {
    console.error(`Invalid build configuration: ${problems.join('; ')}.`);
    process.exit(1);
  }
  return folder;
}

/** The webpack layer of the reporting file sampled visitors load (see webpack() below). */
const TRACING_LAYER = 'app-shell-tracing';

export default function nextConfig(phase: string): NextConfig {
  const { distDir, output, typecheck, traces } = buildFolder();
  const dev = phase === PHASE_DEVELOPMENT_SERVER;
  // Inlined into every bundle at build time: one release and one reporting setup for browser,
  // server and health. The running production server reads the build's values instead (see
  // lib/server/build-output.ts): a container has no git to ask, and must not disagree with its bundles.
  const env = phase === PHASE_PRODUCTION_SERVER ? null : inlinedEnv(dev);
  return {
    poweredByHeader: false,
    // NEXT_TYPECHECK=off: the sources were checked already (npm run typecheck, an earlier build).
    typescript: { ignoreBuildErrors: typecheck === 'off' },
    // NEXT_TRACES=off: every file left out of every trace (`next-server` and each page match `**`),
    // so Next's file tracer reads nothing. Next has no switch of its own for webpack builds.
    ...(traces === 'off' ? { outputFileTracingExcludes: { '**': ['**'] } } : {}),
    // The image optimizer (/_next/image) stays off: the shell serves no images, and the optimizer
    // fetches, decodes and re-encodes whatever a query string names, and answers 500 to some
    // malformed ones. With this, /_next/image is a 404 and next/image serves files as they are.
    // How to turn it on, and what that risks: docs/images.md.
    images: { unoptimized: true },
    // Next's page cache (statically generated and regenerated pages, on-demand revalidation) goes
    // through the shell's handler, which the production server hands Next at start rather than this
    // file naming it as `cacheHandler`: Next imports a named handler's file twice on every request, a
    // hit's largest cost (docs/page-cache.md). A product that names a `cacheHandler` here has its own.
    reactStrictMode: true,
    distDir,
    // Loaded from node_modules on the server, not bundled: the compiled server (lib/server/start.ts)
    // requires them too, so both share one copy (a product's own metrics join the server's one
    // registry, lib/metrics/record.ts), and the standalone output traces them into the image.
    serverExternalPackages: ['@sentry/core', 'prom-client'],
    ...(env ? { env } : {}),
    // `npm run dev` compiles with Turbopack unless the session needs the webpack() hook below
    // (lib/server/start.ts chooses; Next marks its choice in TURBOPACK before it reads this file).
    ...(dev && process.env.TURBOPACK ? turbopackInDevelopment(__dirname) : {}),
    // A self-contained server folder for the container image (the Dockerfile sets this). Off
    // otherwise, because Next then warns on every start that `next start` cannot serve it.
    ...(output ? { output } : {}),
    pageExtensions: withFixtures ? ['tsx', 'ts', 'fixture.jsx'] : ['tsx', 'ts'],
    // Source maps for browser and server bundles, so reports resolve to the original file and
    // line. Made "hidden" in webpack() below: no bundle points at its map, and
    // scripts/source-maps.ts moves every map out of what the server serves.
    productionBrowserSourceMaps: true,
    experimental: {
      serverSourceMaps: true,
      // The client router's bloom filter exists to hard-navigate from Pages Router links to App
      // Router routes. This app has no App Router, and the filter costs every page ~500 bytes of
      // first-load JS (gzip) once any dynamic route exists.
      clientRouterFilter: false,
    },
    webpack(config, { webpack, isServer, buildId, dev, config: resolved }) {
      if (!dev && config.devtool === 'source-map') config.devtool = 'hidden-source-map';
      // Where the browser finds the SDK files; '' where there is none (servers, builds without a
      // DSN, and for tracing builds that sample nothing), so the reporter's loader folds away
      // (lib/reporting/browser/reporter.ts).
      const reporting = !isServer && Boolean(env?.APP_SENTRY_DSN);
      const tracing = reporting && Number(env?.APP_SENTRY_TRACES_SAMPLE_RATE) > 0;
      const sdkFile = reporting ? `static/chunks/reporting-${buildId}.js` : '';
      const tracingFile = tracing ? `static/chunks/reporting-tracing-${buildId}.js` : '';
      // A CDN's origin in assetPrefix: every page's scripts and styles come from there, which the
      // shell's Content-Security-Policy ('self') and Cross-Origin-Resource-Policy refuse. Said once
      // (by the browser compile) rather than left to a build whose pages never run.
      if (!isServer && !dev && URL.canParse(assetBase(resolved)))
        console.warn(cdnAssetPrefixWarning(assetBase(resolved)));
      // Asked as Next asks for every build file (lib/config/asset-urls.ts): at a bare /_next/ path
      // a basePath build never found them, and the fleet could not tell a deploymentId build's.
      config.plugins.push(
        new webpack.DefinePlugin({
          'process.env.APP_SENTRY_SDK_URL': JSON.stringify(assetUrl(resolved, sdkFile)),
          'process.env.APP_SENTRY_TRACING_URL': JSON.stringify(assetUrl(resolved, tracingFile)),
        }),
      );
      // The browser SDK as entries of their own, loaded by a script element once the page is idle
      // (lib/reporting/browser/reporter.ts): errors and sessions for every visitor, and the same
      // with tracing for sampled ones. A dynamic import() would add webpack's chunk-loading runtime
      // to every page's first-load JS. The build id in the names makes them cacheable forever.
      // Next makes each such entry depend on its `main` entry, so the files leave out what `main`
      // already carries (some 11 KB). `npm run dev` has no `main` entry, and the compile fails
      // ("Entry app-shell-reporting depends on main"): there, and only there, each stands alone.
      const standAlone = dev ? { dependOn: undefined } : {};
      const reportingEntries: Record<
        string,
        { import: string; filename: string; layer?: string; dependOn?: undefined }
      > = {};
      if (sdkFile)
        reportingEntries['app-shell-reporting'] = {
          import: path.join(__dirname, 'lib/reporting/browser/sdk-entry.ts'),
          filename: sdkFile,
          ...standAlone,
        };
      if (tracingFile) {
        // In a webpack layer of its own, where Sentry's modules are separate copies built with
        // their tracing flag on (scripts/webpack/sentry-tracing-flag.js); it is off everywhere
        // else (below), so the plain file does not carry the tracing code the flag guards.
        reportingEntries['app-shell-reporting-tracing'] = {
          import: path.join(__dirname, 'lib/reporting/browser/tracing-entry.ts'),
          filename: tracingFile,
          layer: TRACING_LAYER,
          ...standAlone,
        };
        config.module.rules.push({
          issuerLayer: TRACING_LAYER,
          // (Only @sentry/core reads the flag.)
          test: /[\\/]node_modules[\\/]@sentry[\\/]core[\\/].+\.m?js$/,
          use: [path.join(__dirname, 'scripts/webpack/sentry-tracing-flag.js')],
        });
      }
      if (sdkFile) {
        const nextEntries = config.entry;
        config.entry = async () => ({ ...(await nextEntries()), ...reportingEntries });
        // Each in one file: chunks split off them would never be loaded by a plain script element.
        const splitChunks = config.optimization?.splitChunks;
        if (splitChunks && typeof splitChunks.chunks === 'function') {
          const nextChunks = splitChunks.chunks;
          splitChunks.chunks = (chunk: { name?: string }) =>
            !(chunk.name && chunk.name in reportingEntries) && nextChunks(chunk);
        }
      }
      if (withFixtures) {
        // The fleet fixtures show which build made them (pages/__fixtures__/fleet/), so two fixture
        // builds differ in every chunk that includes them, as two releases do.
        config.plugins.push(
          new webpack.DefinePlugin({ 'process.env.APP_FIXTURE_BUILD_ID': JSON.stringify(buildId) }),
        );
      }
      if (withFixtures && isServer) {
        // The fixture builds' dependency checks (off unless APP_SHELL_FIXTURE_CHECKS=1 at start).
        config.plugins.push(
          new webpack.NormalModuleReplacementPlugin(
            /[\\/]lib[\\/]health[\\/]dependencies\.ts$/,
            path.join(__dirname, '__tests__/e2e/__fixtures__/health-dependencies.ts'),
          ),
        );
      }
      if (!isServer) {
        // Leave Sentry's debug logging, tracing and replay code out of the lazily loaded SDK
        // files (the tracing file's copy of Sentry has the tracing flag set before this applies).
        config.plugins.push(
          new webpack.DefinePlugin({
            __SENTRY_DEBUG__: false,
            __SENTRY_TRACING__: false,
            __RRWEB_EXCLUDE_IFRAME__: true,
            __RRWEB_EXCLUDE_SHADOW_DOM__: true,
            __SENTRY_EXCLUDE_REPLAY_WORKER__: true,
          }),
        );
      }
      return config;
    },
  };
}
