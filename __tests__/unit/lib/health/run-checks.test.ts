import {
  contribution,
  failureKind,
  runCheck,
  runChecks,
  sharedCheckRunner,
  worstStatus,
} from '@lib/health/run-checks';
import type { CheckObservation, HealthCheck, HealthStatus } from '@lib/health/types';

function check(name: string, status: HealthStatus, { critical = true, timeoutMs = 200 } = {}): HealthCheck {
  return { name, componentType: 'component', critical, timeoutMs, run: () => ({ status }) };
}

describe('status aggregation', () => {
  it('takes the worst status', () => {
    expect(worstStatus([])).toBe('pass');
    expect(worstStatus(['pass', 'warn'])).toBe('warn');
    expect(worstStatus(['warn', 'fail', 'pass'])).toBe('fail');
  });

  it('lets a non-critical failure only warn', () => {
    expect(contribution({ critical: false }, 'fail')).toBe('warn');
    expect(contribution({ critical: true }, 'fail')).toBe('fail');
    expect(contribution({ critical: false }, 'pass')).toBe('pass');
  });

  it('folds checks into one report keyed by name', async () => {
    const outcome = await runChecks([check('a:x', 'pass'), check('b:y', 'fail', { critical: false })]);
    expect(outcome.status).toBe('warn');
    expect(Object.keys(outcome.checks)).toEqual(['a:x', 'b:y']);
    expect(outcome.checks['b:y']![0]!.status).toBe('fail');
  });

  it('fails when a critical check fails', async () => {
    expect((await runChecks([check('a:x', 'pass'), check('b:y', 'fail')])).status).toBe('fail');
  });
});

describe('check timeouts', () => {
  it('counts a check that does not finish in time as failed, and aborts it', async () => {
    let aborted = false;
    const slow: HealthCheck = {
      name: 'slow:responseTime',
      componentType: 'datastore',
      critical: true,
      timeoutMs: 30,
      run: (signal) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve({ status: 'pass' }), 5000);
          signal.addEventListener('abort', () => {
            aborted = true;
            clearTimeout(timer);
          });
        }),
    };
    const observation = await runCheck(slow);
    expect(observation.status).toBe('fail');
    expect(observation.output).toBe('timeout');
    expect(aborted).toBe(true);
  });
});

function errorWith(message: string, fields: Record<string, unknown>): Error {
  return Object.assign(new Error(message), fields);
}

describe('failure output: a kind, never the message', () => {
  const refused = errorWith('connect ECONNREFUSED 10.0.3.7:5432', {
    code: 'ECONNREFUSED',
    address: '10.0.3.7',
    port: 5432,
  });
  // The kind, not the error, in each title: an error prints its stack, which names the folder the
  // tests run in, and a title that changes from run to run is a new test to StrykerJS's record.
  const cases: [string, unknown, string][] = [
    ['ECONNREFUSED', refused, 'connection refused'],
    [
      'fetch failed, caused by ECONNREFUSED',
      new TypeError('fetch failed', { cause: refused }),
      'connection refused',
    ],
    [
      'AggregateError of refusals',
      new AggregateError([refused, refused], 'connect failed'),
      'connection refused',
    ],
    ['AbortError', errorWith('This operation was aborted', { name: 'AbortError' }), 'timeout'],
    ['TimeoutError', errorWith('The operation timed out', { name: 'TimeoutError' }), 'timeout'],
    ['ETIMEDOUT', errorWith('connect ETIMEDOUT db.internal.example:5432', { code: 'ETIMEDOUT' }), 'timeout'],
    ['ENOTFOUND', errorWith('getaddrinfo ENOTFOUND db.internal.example', { code: 'ENOTFOUND' }), 'failed'],
    ['a plain Error', new Error('password authentication failed for user "app"'), 'failed'],
    ['a string', 'postgres://app:hunter2@db.internal.example/app', 'failed'],
    ['null', null, 'failed'],
  ];
  it.each(cases.map(([name, thrown, kind]) => [name, kind, thrown] as const))(
    '%s → %s',
    async (_name, kind, thrown) => {
      expect(failureKind(thrown)).toBe(kind);
      const observation = await runCheck({
        ...check('db:x', 'pass'),
        run: () => {
          throw thrown;
        },
      });
      expect(observation).toEqual(expect.objectContaining({ status: 'fail', output: kind }));
      expect(JSON.stringify(observation)).not.toMatch(/10\.0\.3\.7|5432|internal|hunter2|password|\bat /);
    },
  );

  it('replaces an output that is not a kind, and drops a value given without its unit', async () => {
    const raw = {
      ...check('db:x', 'pass'),
      run: () =>
        ({ status: 'fail', output: 'connect ECONNREFUSED 10.0.3.7:5432', observedValue: 12 }) as unknown as {
          status: 'fail';
        },
    };
    expect(await runCheck(raw, () => new Date(0))).toEqual({
      componentType: 'component',
      status: 'fail',
      output: 'failed',
      time: new Date(0).toISOString(),
    });
  });
});

describe('a dependency check’s observation', () => {
  it('keeps its value with its unit, as the check gave them', async () => {
    const timed: HealthCheck = { ...check('postgres:responseTime', 'pass'), componentType: 'datastore' };
    timed.run = () => ({ status: 'pass', observedValue: 12, observedUnit: 'ms' });
    expect(await runCheck(timed, () => new Date(0))).toEqual({
      componentType: 'datastore',
      status: 'pass',
      observedValue: 12,
      observedUnit: 'ms',
      time: new Date(0).toISOString(),
    });
  });
});

describe('sharedCheckRunner', () => {
  function counted(): { check: HealthCheck; runs: () => number; finish: () => void } {
    let runs = 0;
    let finishers: (() => void)[] = [];
    const slow: HealthCheck = {
      ...check('db:x', 'pass'),
      timeoutMs: 60_000,
      run: () =>
        new Promise((resolve) => {
          runs += 1;
          finishers.push(() => resolve({ status: 'pass', observedValue: runs, observedUnit: 'runs' }));
        }),
    };
    return {
      check: slow,
      runs: () => runs,
      finish: () => {
        const pending = finishers;
        finishers = [];
        pending.forEach((finish) => finish());
      },
    };
  }

  it('runs a check once for any number of concurrent probes', async () => {
    const { check: slow, runs, finish } = counted();
    const run = sharedCheckRunner(() => 0);
    const probes = Array.from({ length: 20 }, () => run(slow));
    expect(runs()).toBe(1);
    finish();
    const observations: CheckObservation[] = await Promise.all(probes);
    expect(new Set(observations).size).toBe(1);
  });

  it('reuses a finished result for reuseMs, then runs again', async () => {
    const { check: slow, runs, finish } = counted();
    // A clock that does not start at 0, as performance.now() does not.
    let now = 5000;
    const run = sharedCheckRunner(
      () => 1000,
      () => now,
    );
    const first = run(slow);
    finish();
    await first;
    now = 5999;
    expect(await run(slow)).toBe(await first);
    expect(runs()).toBe(1);
    now = 6000;
    const second = run(slow);
    expect(runs()).toBe(2);
    finish();
    expect((await second).observedValue).toBe(2);
  });

  it('runs again for every probe that comes after the last finished, with reuse off', async () => {
    const { check: slow, runs, finish } = counted();
    const run = sharedCheckRunner(() => 0);
    for (let i = 1; i <= 3; i += 1) {
      const pending = run(slow);
      finish();
      await pending;
      expect(runs()).toBe(i);
    }
  });

  it('keeps no failed run: a runner that rejects is asked again by the next probe', async () => {
    let calls = 0;
    const run = sharedCheckRunner(
      () => 60_000,
      () => 0,
      () => {
        calls += 1;
        return Promise.reject(new Error('runner broke'));
      },
    );
    const db = check('db:x', 'pass');
    await expect(run(db)).rejects.toThrow('runner broke');
    await expect(run(db)).rejects.toThrow('runner broke');
    expect(calls).toBe(2);
  });
});

describe('what a check leaves behind', () => {
  afterEach(() => jest.useRealTimers());

  it('no timer once it has answered, so its signal is never aborted afterwards', async () => {
    jest.useFakeTimers();
    let signal: AbortSignal | undefined;
    const quick: HealthCheck = {
      ...check('db:x', 'pass'),
      timeoutMs: 5000,
      run: (given) => {
        signal = given;
        return { status: 'pass' };
      },
    };
    await runCheck(quick);
    expect(jest.getTimerCount()).toBe(0);
    jest.advanceTimersByTime(10_000);
    expect(signal?.aborted).toBe(false);
  });

  it('no value key for a unit given without a value', async () => {
    const unitOnly: HealthCheck = {
      ...check('db:x', 'pass'),
      run: () => ({ status: 'pass', observedUnit: 'ms' }) as unknown as { status: 'pass' },
    };
    expect(await runCheck(unitOnly, () => new Date(0))).toStrictEqual({
      componentType: 'component',
      status: 'pass',
      time: new Date(0).toISOString(),
    });
  });
});

describe('failureKind on errors made to trip it', () => {
  const wrap = (inner: unknown, times: number): unknown =>
    times === 0 ? inner : wrap(new Error('wrapped', { cause: inner }), times - 1);
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

  it('looks three causes deep, and no deeper', () => {
    expect(failureKind(wrap(refused, 3))).toBe('connection refused');
    expect(failureKind(wrap(refused, 4))).toBe('failed');
  });

  it('ends on an error that is its own cause', () => {
    const loop = new Error('loop');
    (loop as { cause?: unknown }).cause = loop;
    expect(failureKind(loop)).toBe('failed');
  });

  it('reads a cause beside an AggregateError-like list', () => {
    expect(failureKind({ cause: refused, errors: 'not a list' })).toBe('connection refused');
    expect(failureKind({ errors: [new Error('x'), refused] })).toBe('connection refused');
  });
});
