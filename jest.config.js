// Unit tests: jsdom, no server, no browser. next/jest brings SWC, CSS-module mocks and .env loading.
const nextJest = require('next/jest').default;

const createJestConfig = nextJest({ dir: __dirname });

module.exports = createJestConfig({
  displayName: 'unit',
  testEnvironment: 'jsdom',
  setupFilesAfterEnv: ['<rootDir>/jest.setup.ts'],
  testMatch: ['<rootDir>/__tests__/unit/**/*.test.{ts,tsx}'],
});
