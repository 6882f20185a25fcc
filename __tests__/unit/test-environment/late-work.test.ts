// The environment every suite runs in (__tests__/support/jest-environment.cjs): a test file whose
// work outlives it fails, with the late code's stack, instead of breaking whichever file runs next
// on some machines only. Checked by running Jest itself on the fixture files beside this one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../support/paths';

const FIXTURES = path.join(__dirname, '__fixtures__');
const ENVIRONMENT = path.join(ROOT, '__tests__/support/jest-environment.cjs');
const JEST = path.join(ROOT, 'node_modules/jest/bin/jest.js');

const cacheDirectory = mkdtempSync(path.join(tmpdir(), 'late-work-'));

afterAll(() => {
  rmSync(cacheDirectory, { recursive: true, force: true });
});

interface Run {
  status: number | null;
  output: string;
}

let runs = 0;

/** Runs Jest in one worker on the named fixture files, in the order of their names. */
function jest(environment: string, ...files: string[]): Run {
  const config = {
    rootDir: FIXTURES,
    testEnvironment: environment,
    testMatch: ['<rootDir>/*.fixture.cjs'],
    testSequencer: path.join(FIXTURES, 'in-name-order.cjs'),
    transform: {},
    cacheDirectory,
  };
  const result = spawnSync(
    process.execPath,
    [
      JEST,
      '--ci',
      '--runInBand',
      '--config',
      JSON.stringify(config),
      '--runTestsByPath',
      ...files.map((f) => path.join(FIXTURES, f)),
    ],
    {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 60_000,
      // Where c-leaves-slow-work's late work marks that it ran, for d-runs-next to wait for.
      env: { ...process.env, FORCE_COLOR: '0', LATE_WORK_MARKER: path.join(cacheDirectory, `ran-${runs++}`) },
    },
  );
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Jest's one-line verdict for a file: PASS or FAIL. */
function verdict(run: Run, file: string): string | undefined {
  return run.output.match(new RegExp(`^(PASS|FAIL) .*${file.replaceAll('.', '\\.')}`, 'm'))?.[1];
}

// Whether Jest's own cleanup soft-deletes a finished file's globals on this Node, with its stock
// Node environment. It did on Node 20, no longer supported. On Node 22 (seen in CI) and Node 24 it
// deletes nothing: jest-environment-node 30.5
// puts its protect-from-deletion mark on the test context's Object.prototype, which every plain
// object inherits; late work then finds its objects intact, and there is nothing to catch there.
const jestSoftDeletes = /\[JEST-01\]/.test(jest('node', 'a-leaves-work.fixture.cjs').output);
const whereJestSoftDeletes = jestSoftDeletes ? it : it.skip;
const nodeMajor = Number(process.versions.node.split('.')[0]);

describe('the test environment', () => {
  it('has something to catch below Node 22: Jest soft-deletes there, so the cases below run', () => {
    expect(jestSoftDeletes || nodeMajor >= 22).toBe(true);
  });

  whereJestSoftDeletes('fails a file whose work runs after it ended, and shows where that work is', () => {
    const run = jest(ENVIRONMENT, 'a-leaves-work.fixture.cjs');
    expect(run.status).toBe(1);
    expect(verdict(run, 'a-leaves-work.fixture.cjs')).toBe('FAIL');
    expect(run.output).toContain(
      'seen as __tests__/unit/test-environment/__fixtures__/a-leaves-work.fixture.cjs ended',
    );
    // The late code's own frame: the timer in the fixture.
    expect(run.output).toMatch(/a-leaves-work\.fixture\.cjs:6/);
  });

  whereJestSoftDeletes(
    'fails a file whose late work writes to its globals, instead of letting the worker die',
    () => {
      const run = jest(ENVIRONMENT, 'e-leaves-a-write.fixture.cjs');
      expect(run.status).toBe(1);
      expect(verdict(run, 'e-leaves-a-write.fixture.cjs')).toBe('FAIL');
      expect(run.output).toContain('RangeError: Maximum call stack size exceeded');
      expect(run.output).toMatch(/e-leaves-a-write\.fixture\.cjs:6/);
    },
  );

  it('passes a file that waits for the same work', () => {
    const run = jest(ENVIRONMENT, 'b-waits.fixture.cjs');
    expect(verdict(run, 'b-waits.fixture.cjs')).toBe('PASS');
    expect(run.status).toBe(0);
  });

  whereJestSoftDeletes(
    'fails the next file when the late work runs during it, naming the file that ended before',
    () => {
      const run = jest(ENVIRONMENT, 'c-leaves-slow-work.fixture.cjs', 'd-runs-next.fixture.cjs');
      expect(run.status).toBe(1);
      expect(verdict(run, 'c-leaves-slow-work.fixture.cjs')).toBe('PASS');
      expect(verdict(run, 'd-runs-next.fixture.cjs')).toBe('FAIL');
      expect(run.output).toContain(
        'the last of which was __tests__/unit/test-environment/__fixtures__/c-leaves-slow-work.fixture.cjs',
      );
      expect(run.output).toMatch(/c-leaves-slow-work\.fixture\.cjs:9/);
    },
  );
});

describe('every test file', () => {
  // jsdom as StrykerJS wraps it (the same jsdom outside a mutation run): mutation testing refuses to
  // start when a test file ran in an environment that cannot say which test reached which code.
  it('runs in it, unless it needs a DOM: only jsdom, as mutation testing wraps it, may be asked for instead', () => {
    // Every file under __tests__ that Jest could run, fixtures of other tools included.
    const files = readdirSync(path.join(ROOT, '__tests__'), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.(test|fixture)\.[cm]?[jt]sx?$/.test(file))
      .map((file) => path.join('__tests__', file));
    expect(files.length).toBeGreaterThan(40);
    const others = files
      .map((file) => [
        file,
        readFileSync(path.join(ROOT, file), 'utf8').match(/@jest-environment\s+(\S+)/)?.[1],
      ])
      .filter(
        ([, environment]) =>
          environment !== undefined && environment !== '@stryker-mutator/jest-runner/jest-env/jsdom',
      );
    expect(others).toEqual([]);
  });
});
