// Builds what the browser and reliability tests run against, once per run, before any test, two at
// a time on the two cores: the production build with the README's `npm run build` as it is (the
// compiled server, then `next build`, which checks the types), and beside it every other build the
// suites serve, each with the same build steps less what the first does for the same sources
// (compiling the server to dist/, and Next's TypeScript check: NEXT_TYPECHECK=off) and less the file
// traces `npm start` never reads (NEXT_TRACES=off). A test file asks for its build by name
// (`buildUnlessKept`) and finds it made, or, run alone, makes it then. E2E_SKIP_BUILD=1 reuses
// existing builds while iterating on tests.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  FIXTURE_DIST,
  FLEET_B_DIST,
  FLEET_C_DIST,
  PRODUCTION_DIST,
  PRODUCTION_DSN_DIST,
  REPORTING_DIST,
  REPORTING_NEXT_DIST,
  ROOT,
  SAMPLED_DIST,
  STANDALONE_DIST,
  TRACING_DIST,
  WORKER_OFF_DIST,
} from './paths';
import { eachLimited } from './each-limited';
import {
  buildProductAsync,
  NEXT_DEPLOYMENT,
  PARITY_PRODUCTS,
  prebuiltProduct,
  PRODUCTS_BUILT,
  productsBuilt,
} from './product-build';
import { reportingBuild } from './reporting-build';
import { freePort } from './server';

/** What `npm run build` printed, kept inside the build it made. */
export const BUILD_OUTPUT = 'build-output.log';

/** The builds made in this run (a list in the environment, which the test files inherit). */
const BUILT = 'APP_SHELL_BUILT_THIS_RUN';
/** Set once a build of this run has compiled the server and checked the types. */
const CHECKED = 'APP_SHELL_TYPES_CHECKED';
/** The copy of dist/ the builds beside the README's read their build steps from, and its mark. */
const SIDE_DIST = '.next-dist-copy';
const SIDE_DIST_MADE = 'APP_SHELL_SIDE_DIST_MADE';

const builtThisRun = (distDir: string) => (process.env[BUILT] ?? '').split(',').includes(distDir);
const noteBuilt = (distDir: string) => {
  process.env[BUILT] = [process.env[BUILT], distDir].filter(Boolean).join(',');
};

/** Whether `distDir` needs no build now: made already in this run, or kept with E2E_SKIP_BUILD=1. */
const isKept = (distDir: string) =>
  builtThisRun(distDir) ||
  (process.env.E2E_SKIP_BUILD === '1' && existsSync(path.join(ROOT, distDir, 'BUILD_ID')));

/**
 * `distDir`, built with `extraEnv`: made already in this run (by the set-up), kept with
 * E2E_SKIP_BUILD=1, or built now.
 */
export function buildUnlessKept(distDir: string, extraEnv: Record<string, string>) {
  if (!isKept(distDir)) npmBuild(distDir, extraEnv);
}

/**
 * The build command: the README's `npm run build` whole for the run's first build (`readme`); the
 * others run the same steps less compiling the server (two builds at once must not both write
 * dist/), from a copy of dist/ when the set-up made one (`SIDE_DIST`: the README's build, beside
 * them, compiles dist/ again), with NEXT_TYPECHECK=off (the README's build checks these sources, and
 * the set-up fails with it) and NEXT_TRACES=off (they are served with `npm start`, which reads no
 * file trace; the standalone build asks for its traces back).
 */
function command(readme = false): { file: string; args: string[]; env: Record<string, string> } {
  if (readme) return { file: 'npm', args: ['run', '--silent', 'build'], env: {} };
  const script = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { build: string } }
  ).scripts.build;
  const side = process.env[SIDE_DIST_MADE] === '1';
  const rest = script
    .replace(/^npm run build:server && /, '')
    .replaceAll('node dist/', side ? `node ${SIDE_DIST}/` : 'node dist/');
  // As npm runs a script: with the project's own binaries (`next`) first on PATH.
  const PATH = `${path.join(ROOT, 'node_modules/.bin')}${path.delimiter}${process.env.PATH ?? ''}`;
  return {
    file: 'sh',
    args: ['-c', rest],
    env: { PATH, NEXT_TRACES: 'off', NEXT_TYPECHECK: 'off' },
  };
}

function buildEnv(distDir: string, extraEnv: Record<string, string>, own: Record<string, string>) {
  return { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: distDir, ...own, ...extraEnv };
}

function built(distDir: string, status: number | null, stdout: string, first: boolean) {
  if (status !== 0) throw new Error(`npm run build for ${distDir} failed (exit ${status})`);
  writeFileSync(path.join(ROOT, distDir, BUILD_OUTPUT), stdout);
  noteBuilt(distDir);
  if (first) process.env[CHECKED] = '1';
}

/** `npm run build` into `distDir`, its output shown and kept in `<distDir>/build-output.log`; throws when it fails. */
function npmBuild(distDir: string, extraEnv: Record<string, string>) {
  process.stdout.write(`\n[tests] npm run build → ${distDir}\n`);
  const readme = process.env[CHECKED] !== '1';
  const { file, args, env } = command(readme);
  const result = spawnSync(file, args, {
    cwd: ROOT,
    env: buildEnv(distDir, extraEnv, env),
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  process.stdout.write(result.stdout ?? '');
  built(distDir, result.status, result.stdout ?? '', readme);
}

/** The same, without waiting: for builds made side by side. */
function npmBuildAsync(distDir: string, extraEnv: Record<string, string>, readme = false): Promise<void> {
  const { file, args, env } = command(readme);
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      cwd: ROOT,
      env: buildEnv(distDir, extraEnv, env),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.on('error', reject);
    child.on('close', (status) => {
      process.stdout.write(`\n[tests] npm run build → ${distDir}\n${stdout}`);
      try {
        built(distDir, status, stdout, readme);
        resolve();
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

type Planned = [distDir: string, env: () => Record<string, string>, readme?: 'readme'];

/** Builds the planned ones not kept, two at a time, in order; rejects once all ended if any failed. */
async function twoAtATime(planned: Planned[]): Promise<void> {
  const failures: unknown[] = [];
  await eachLimited(
    planned.filter(([distDir]) => !isKept(distDir)),
    2,
    ([distDir, env, readme]) =>
      npmBuildAsync(distDir, env(), readme === 'readme').catch((error: unknown) => void failures.push(error)),
  );
  if (failures.length > 0) throw failures[0];
}

/**
 * The server compiled to dist/ and copied to `SIDE_DIST`, so that builds can run beside the
 * README's `npm run build`: it compiles dist/ again, and a script read while tsc writes it could be
 * read half written.
 */
function copyCompiledServer(): void {
  const result = spawnSync('npm', ['run', '--silent', 'build:server'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`npm run build:server failed (exit ${result.status})`);
  rmSync(path.join(ROOT, SIDE_DIST), { recursive: true, force: true });
  cpSync(path.join(ROOT, 'dist'), path.join(ROOT, SIDE_DIST), { recursive: true });
  process.env[SIDE_DIST_MADE] = '1';
}

/** The DSN the reporting build baked in: the same local ingest for the builds made from it. */
const reportingDsn = () => reportingBuild().dsn;

/**
 * The shared builds whose settings do not depend on the run (the reporting build's DSN names the
 * run's ingest port, chosen in the set-up).
 */
const SHARED: Planned[] = [
  [PRODUCTION_DIST, () => ({}), 'readme'],
  // Port 9 (discard): nothing listens; only the bytes and the SDK files of this build are examined.
  // With tracing on, the heaviest first-load JS a build can have (lib/reporting/browser/reporter.ts).
  [
    PRODUCTION_DSN_DIST,
    () => ({ SENTRY_DSN: 'http://publickey@127.0.0.1:9/1', SENTRY_TRACES_SAMPLE_RATE: '0.1' }),
  ],
  [FIXTURE_DIST, () => ({ APP_SHELL_FIXTURES: '1' })],
];

/** The builds only some files serve, by the suite that serves them. */
const E2E_ONLY: Planned[] = [
  [WORKER_OFF_DIST, () => ({ APP_SHELL_FIXTURES: '1', SERVICE_WORKER: 'off' })],
  [FLEET_C_DIST, () => ({ APP_SHELL_FIXTURES: '1' })],
  [STANDALONE_DIST, () => ({ NEXT_OUTPUT: 'standalone', NEXT_TRACES: 'on' })],
  // Carries the fixture build's files, so after it.
  [FLEET_B_DIST, () => ({ APP_SHELL_FIXTURES: '1', KEEP_STATIC_FROM: `${FIXTURE_DIST}/static` })],
  [
    TRACING_DIST,
    () => ({ APP_SHELL_FIXTURES: '1', SENTRY_DSN: reportingDsn(), SENTRY_TRACES_SAMPLE_RATE: '1' }),
  ],
  [REPORTING_NEXT_DIST, () => ({ APP_SHELL_FIXTURES: '1', SENTRY_DSN: reportingDsn() })],
];
const RELIABILITY_ONLY: Planned[] = [
  [
    SAMPLED_DIST,
    () => ({ APP_SHELL_FIXTURES: '1', SENTRY_DSN: reportingDsn(), SENTRY_TRACES_SAMPLE_RATE: '0.01' }),
  ],
];
/** The env each of those builds is made with, for a test file that builds its own when run alone. */
export function plannedEnv(distDir: string): Record<string, string> {
  const found = [...SHARED, ...E2E_ONLY, ...RELIABILITY_ONLY].find(([name]) => name === distDir);
  if (!found) throw new Error(`no build ${distDir} is planned (support/builds.ts)`);
  return found[1]();
}

/** Every build a suite serves: the shared ones, then its own (`suite`), two at a time after the first. */
export async function buildAll(suite: 'e2e' | 'reliability'): Promise<void> {
  // The DSN is baked into the browser bundle, so the local ingest's port is chosen now; the tests
  // read it back from the build (support/reporting-build.ts) and listen on it.
  const ingestPort = await freePort();
  // The README's build first, in one lane, and the others beside it in the second.
  if (!isKept(PRODUCTION_DIST)) copyCompiledServer();
  await twoAtATime([
    ...SHARED,
    [
      REPORTING_DIST,
      () => ({ APP_SHELL_FIXTURES: '1', SENTRY_DSN: `http://publickey@127.0.0.1:${ingestPort}/1` }),
    ],
  ]);
  // The end-to-end set-up makes the reliability suite's own build too: `npm test` runs that suite
  // next, and a build costs less in a lane beside others than alone.
  await twoAtATime(suite === 'e2e' ? [...E2E_ONLY, ...RELIABILITY_ONLY] : RELIABILITY_ONLY);
  // The differential test's products, each a copy of the shell built in a configuration a team may
  // set, and the next release of its deploymentId one (e2e/fleet-deployments.test.ts); not while
  // iterating on tests (E2E_SKIP_BUILD=1), where the test builds those it runs.
  if (suite === 'e2e' && process.env.E2E_SKIP_BUILD !== '1') await buildProducts();
}

async function buildProducts(): Promise<void> {
  const waiting = [...PARITY_PRODUCTS, NEXT_DEPLOYMENT].filter((product) => !prebuiltProduct(product.name));
  await eachLimited(waiting, 2, async (product) => {
    const dir = await buildProductAsync(product);
    process.stdout.write(`\n[tests] product built → ${product.name} (${dir})\n`);
    process.env[PRODUCTS_BUILT] = JSON.stringify({ ...productsBuilt(), [product.name]: dir });
  });
}

/** After the suite: the products no test removed (a run of some files only). */
export function removeProducts(): void {
  for (const dir of Object.values(productsBuilt())) rmSync(dir, { recursive: true, force: true });
}

export default async function globalSetup() {
  await buildAll('e2e');
}
