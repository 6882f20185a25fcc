// Builds what the browser and reliability tests run against, once per run, each with the README's
// `npm run build` (the compiled server, then `next build`): the production build, the fixture
// build and the reporting build. E2E_SKIP_BUILD=1 reuses existing builds while iterating on tests.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE_DIST, PRODUCTION_DIST, PRODUCTION_DSN_DIST, REPORTING_DIST, ROOT } from './paths';
import { freePort } from './server';

/** What `npm run build` printed, kept inside the build it made. */
export const BUILD_OUTPUT = 'build-output.log';

/** `npm run build` into `distDir`, unless E2E_SKIP_BUILD=1 and a build is already there. */
export function buildUnlessKept(distDir: string, extraEnv: Record<string, string>) {
  if (process.env.E2E_SKIP_BUILD === '1' && existsSync(path.join(ROOT, distDir, 'BUILD_ID'))) return;
  npmBuild(distDir, extraEnv, 'inherit');
}

/** `npm run build` into `distDir`, its output also kept in `<distDir>/build-output.log`; throws when it fails. */
export function npmBuild(distDir: string, extraEnv: Record<string, string>, output: 'inherit' | 'ignore') {
  process.stdout.write(`\n[tests] npm run build → ${distDir}\n`);
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: distDir, ...extraEnv },
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (output === 'inherit') process.stdout.write(result.stdout ?? '');
  if (result.status !== 0) throw new Error(`npm run build for ${distDir} failed (exit ${result.status})`);
  writeFileSync(path.join(ROOT, distDir, BUILD_OUTPUT), result.stdout ?? '');
}

export default async function globalSetup() {
  buildUnlessKept(PRODUCTION_DIST, {});
  // Port 9 (discard): nothing listens; only the bytes and the SDK files of this build are examined.
  // With tracing on, the heaviest first-load JS a build can have (lib/reporting/browser/reporter.ts).
  buildUnlessKept(PRODUCTION_DSN_DIST, {
    SENTRY_DSN: 'http://publickey@127.0.0.1:9/1',
    SENTRY_TRACES_SAMPLE_RATE: '0.1',
  });
  buildUnlessKept(FIXTURE_DIST, { APP_SHELL_FIXTURES: '1' });
  // The DSN is baked into the browser bundle, so the local ingest's port is chosen now; the tests
  // read it back from the build (support/reporting-build.ts) and listen on it.
  const ingestPort = await freePort();
  buildUnlessKept(REPORTING_DIST, {
    APP_SHELL_FIXTURES: '1',
    SENTRY_DSN: `http://publickey@127.0.0.1:${ingestPort}/1`,
  });
}
