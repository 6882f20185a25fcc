// @ts-check
const { PHASE_DEVELOPMENT_SERVER } = require('next/constants');
const { securityHeaders } = require('./lib/http/security-headers.js');

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
    pageExtensions: withFixtures ? ['tsx', 'ts', 'fixture.jsx'] : ['tsx', 'ts'],
    async headers() {
      return [{ source: '/:path*', headers: securityHeaders({ dev }) }];
    },
  };
};
