// End-to-end tests: production builds served on loopback, driven in Debian's Chromium.
const nextJest = require('next/jest').default;

const { currentLane, testMatch } = require('./__tests__/support/e2e-lanes.cjs');

const createJestConfig = nextJest({ dir: __dirname });
const lane = currentLane();

module.exports = createJestConfig({
  // Under `npm test`, two lanes side by side (support/e2e-lanes.cjs); run alone, one.
  displayName: lane ? `e2e ${lane}` : 'e2e',
  // Node, failing a file whose work outlives it.
  testEnvironment: '<rootDir>/__tests__/support/jest-environment.cjs',
  testMatch: testMatch(),
  globalSetup: '<rootDir>/__tests__/support/builds.ts',
  globalTeardown: '<rootDir>/__tests__/support/e2e-teardown.ts',
  testTimeout: 60_000,
});
