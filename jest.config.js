// Unit tests: no app server, no browser. next/jest brings SWC, CSS-module mocks and .env loading.
const nextJest = require('next/jest').default;

const createJestConfig = nextJest({ dir: __dirname });

module.exports = createJestConfig({
  displayName: 'unit',
  // Node, failing a file whose work outlives it (a file that needs a DOM says @jest-environment jsdom).
  testEnvironment: '<rootDir>/__tests__/support/jest-environment.cjs',
  setupFilesAfterEnv: ['<rootDir>/jest.setup.ts'],
  testMatch: ['<rootDir>/__tests__/unit/**/*.test.{ts,tsx}'],
});
