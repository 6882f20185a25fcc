// End-to-end tests: production builds served on loopback, driven in Debian's Chromium.
const nextJest = require('next/jest').default;

const createJestConfig = nextJest({ dir: __dirname });

module.exports = createJestConfig({
  displayName: 'e2e',
  // Node, failing a file whose work outlives it.
  testEnvironment: '<rootDir>/__tests__/support/jest-environment.cjs',
  testMatch: ['<rootDir>/__tests__/e2e/**/*.test.ts'],
  // `@lib/…` for lib/ (__tests__/support/lib-alias.cjs).
  moduleNameMapper: require('./__tests__/support/lib-alias.cjs'),
  globalSetup: '<rootDir>/__tests__/support/builds.ts',
  globalTeardown: '<rootDir>/__tests__/support/e2e-teardown.ts',
  testTimeout: 60_000,
});
