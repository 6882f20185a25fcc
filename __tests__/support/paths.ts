import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
/**
 * The project's own sources. Mutation testing runs the unit tests in a copy of the project
 * (`.stryker-tmp/sandbox-…`) whose sources carry StrykerJS's instrumentation, some kilobytes a file:
 * a test that reads a source as text (to weigh what it compiles to, to list what it declares) reads
 * the project's own, and leaves that file's mutants to the tests that run it.
 */
export const SOURCE_ROOT = ROOT.replace(/[\\/]\.stryker-tmp[\\/][^\\/]+$/, '');
/** The production build, exactly as `npm run build` makes it. */
export const PRODUCTION_DIST = '.next';
/**
 * The production build again with SENTRY_DSN set (pointing nowhere) and SENTRY_TRACES_SAMPLE_RATE
 * 0.1: what a reporting deployment with tracing ships.
 */
export const PRODUCTION_DSN_DIST = '.next-dsn';
/** The same build plus the throwing fixture pages, in a folder of its own. */
export const FIXTURE_DIST = '.next-e2e';
/** The fixture build again, with SENTRY_DSN pointing at a local ingest (see support/ingest.ts). */
export const REPORTING_DIST = '.next-e2e-reporting';
/** Builds only some files serve, made with the others before any test (support/builds.ts). */
export const WORKER_OFF_DIST = '.next-e2e-worker-off';
export const FLEET_B_DIST = '.next-e2e-fleet-b';
export const FLEET_C_DIST = '.next-e2e-fleet-c';
export const STANDALONE_DIST = '.next-standalone';
export const TRACING_DIST = '.next-e2e-tracing';
export const REPORTING_NEXT_DIST = '.next-e2e-reporting-next';
export const SAMPLED_DIST = '.next-e2e-tracing-1pc';
