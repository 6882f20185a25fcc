// The reliability suite: load, hostile input and faults against production builds on loopback.
const nextJest = require('next/jest').default;

const createJestConfig = nextJest({ dir: __dirname });

module.exports = createJestConfig({
  displayName: 'reliability',
  // Node, failing a file whose work outlives it.
  testEnvironment: '<rootDir>/__tests__/support/jest-environment.cjs',
  testMatch: ['<rootDir>/__tests__/reliability/**/*.test.ts'],
  // `@lib/…` for lib/ (__tests__/support/lib-alias.cjs).
  moduleNameMapper: require('./__tests__/support/lib-alias.cjs'),
  globalSetup: '<rootDir>/__tests__/support/reliability-setup.ts',
  globalTeardown: '<rootDir>/__tests__/support/reliability-teardown.ts',
  testTimeout: 120_000,
});
