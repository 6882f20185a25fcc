// Unit tests: no app server, no browser. next/jest brings SWC, CSS-module mocks and .env loading.
const path = require('node:path');
const nextJest = require('next/jest').default;

const createJestConfig = nextJest({ dir: __dirname });

const unitConfig = createJestConfig({
  displayName: 'unit',
  // Node, failing a file whose work outlives it (a file that needs a DOM asks for
  // jsdom as StrykerJS wraps it: `@jest-environment @stryker-mutator/jest-runner/jest-env/jsdom`).
  // (A path, not `<rootDir>/…`: StrykerJS loads it itself, before Jest expands `<rootDir>`.)
  testEnvironment: path.join(__dirname, '__tests__/support/jest-environment.cjs'),
  setupFilesAfterEnv: ['<rootDir>/jest.setup.ts'],
  // `@lib/…` for lib/ (__tests__/support/lib-alias.cjs).
  moduleNameMapper: require('./__tests__/support/lib-alias.cjs'),
  // `npm run test:unit` gives it a worker per core (--maxWorkers=100%), not Jest's default of one
  // fewer, which on a 2-core machine is one and leaves a core idle (58 s on Node 24; 33 s with two).
  testMatch: ['<rootDir>/__tests__/unit/**/*.test.{ts,tsx}'],
  // StrykerJS's sandboxes hold a copy of every test (npm run test:mutation).
  modulePathIgnorePatterns: ['<rootDir>/.stryker-tmp/'],
});

// Stryker's report library ships only as ES modules, which Jest loads only when compiled: it is
// compiled like the app's code (next/jest compiles no package of node_modules but Next's own list).
const ESM_ONLY = ['mutation-testing-metrics', 'mutation-testing-report-schema'];
module.exports = async () => {
  const config = await unitConfig();
  const patterns = config.transformIgnorePatterns ?? [];
  const compiled = patterns.map((pattern) =>
    pattern.startsWith('/node_modules/(?!.pnpm)(?!(')
      ? pattern.replace('(?!(', `(?!(${ESM_ONLY.join('|')}|`)
      : pattern,
  );
  if (compiled.every((pattern, index) => pattern === patterns[index]))
    throw new Error(
      "jest.config.js: next/jest's transformIgnorePatterns changed shape; compile ESM_ONLY another way.",
    );
  return { ...config, transformIgnorePatterns: compiled };
};
