// Mutation testing (docs/mutation-testing.md, still being built): StrykerJS plants small bugs in
// the code where the shell's bounds and promises live, runs the unit tests that reach each one, and
// counts the bugs no test noticed. `npm run test:mutation` keeps its results in
// stryker-incremental.json, so a rerun tests only what changed; `-- --force` tests all again.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  packageManager: 'npm',
  testRunner: 'jest',
  // Each mutant runs only the tests that reached it in the first, instrumented run
  // (`coverageAnalysis`), and Jest loads only the test files that import its file
  // (`enableFindRelatedTests`): without it, every test file is loaded for every mutant to run
  // a few of its tests, and a run took three times as long.
  jest: { projectType: 'custom', configFile: 'jest.config.js', enableFindRelatedTests: true },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  // Jest compiles with SWC, which never checks types: no `// @ts-nocheck` is needed in the copies
  // (and one more line would move the line numbers that some tests read from their fixtures).
  disableTypeChecks: false,
  // Every folder of the shell's own code, each scored on its own (scripts/mutation-scores.js).
  mutate: [
    'lib/client/**/*.ts',
    'lib/config/**/*.ts',
    'lib/error-pages/**/*.{ts,tsx}',
    'lib/errors/**/*.ts',
    'lib/files/**/*.ts',
    'lib/fleet/**/*.ts',
    'lib/health/**/*.ts',
    'lib/http/**/*.ts',
    'lib/language/**/*.ts',
    'lib/lifecycle/**/*.ts',
    'lib/log/**/*.ts',
    'lib/management/**/*.ts',
    'lib/metrics/**/*.ts',
    'lib/page-cache/**/*.ts',
    'lib/process/**/*.ts',
    'lib/reporting/**/*.ts',
    'lib/server/**/*.ts',
    'lib/screens/**/*.ts',
    'lib/service-worker/**/*.ts',
    'components/**/*.{ts,tsx}',
    'scripts/**/*.{ts,js,mjs}',
    'instrumentation.ts',
    // The composition root: it reads the settings and wires the stages above together, and what it
    // does is the whole server's behaviour, tested end to end (the e2e, reliability and command
    // tests run it from dist/, where StrykerJS's per-test coverage cannot follow). Its parts are
    // mutated where they live.
    '!lib/server/start.ts',
    // `npm run test:with-product`'s command: a copy of the checkout, an install and the suites, which
    // CI runs for real every time. Its decisions are mutated where they live (scripts/lib/with-product.js).
    '!scripts/test-with-product.js',
    // `npm run dev`'s command: the compile (scripts/compile-dev.js, mutated and unit-tested) then the
    // server, wired in a dozen lines that the dev server's end-to-end test and the bench run for real.
    '!scripts/dev.js',
  ],
  // Static mutants (module code that runs at import, such as a table of headers or a bound held in
  // a constant) are run too: each needs every test of every file that imports it, which costs time
  // once, and the incremental record keeps their results until that code or those tests change.
  // Without them a bound written as a module constant could change with no test failing.
  ignoreStatic: false,
  incremental: true,
  incrementalFile: 'stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  // The bar is per folder (scripts/mutation-scores.js), not this overall one.
  thresholds: { high: 90, low: 85, break: null },
  // Two test runners and two TypeScript checkers on two cores; once every mutant is checked the
  // checkers' places go to two more runners (Stryker gives half of `concurrency` to checkers).
  concurrency: 4,
  // A mutant that makes a test hang is killed (a timeout) after this much more than the test took.
  timeoutMS: 3000,
  // Builds, reports and caches are not needed to run the unit tests, and would be copied for nothing.
  ignorePatterns: [
    '.next',
    '.next-*',
    'dist',
    'test-results',
    'reports',
    'coverage',
    'bench/.work',
    'bench/results',
    'stryker-incremental.json',
  ],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};

export default config;
