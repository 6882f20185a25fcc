// @ts-check
const { PHASE_DEVELOPMENT_SERVER, PHASE_PRODUCTION_SERVER } = require('next/constants');
const { securityHeaders } = require('./lib/http/security-headers.js');
const { packageVersion, resolveRelease } = require('./lib/config/release.js');

/**
 * Pages are TypeScript (`.tsx`, `.ts`). Fixture pages (`*.fixture.jsx`) throw on purpose for the
 * end-to-end tests; they are routes only in the test build, which sets APP_SHELL_FIXTURES=1 and
 * builds into its own folder. Their extension is one the production build never routes: a
 * `*.fixture.tsx` would still end in `.tsx` and ship.
 */
const withFixtures = process.env.APP_SHELL_FIXTURES === '1';

/** @type {(phase: string) => import('next').NextConfig} */
module.exports = (phase) => {
  const dev = phase === PHASE_DEVELOPMENT_SERVER;
  return {
    poweredByHeader: false,
    reactStrictMode: true,
    distDir: process.env.NEXT_DIST_DIR || '.next',
    // Inlined into every bundle at build time: one release for browser, server and health. The
    // running server has no use for it (and a container has no git to ask).
    ...(phase === PHASE_PRODUCTION_SERVER
      ? {}
      : { env: { APP_VERSION: packageVersion(), APP_RELEASE: resolveRelease() } }),
    // A self-contained server folder for the container image (the Dockerfile sets this). Off
    // otherwise, because Next then warns on every start that `next start` cannot serve it.
    ...(process.env.NEXT_OUTPUT === 'standalone' ? { output: 'standalone' } : {}),
    pageExtensions: withFixtures ? ['tsx', 'ts', 'fixture.jsx'] : ['tsx', 'ts'],
    async headers() {
      return [{ source: '/:path*', headers: securityHeaders({ dev }) }];
    },
  };
};
