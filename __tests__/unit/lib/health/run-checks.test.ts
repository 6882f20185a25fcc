/** @jest-environment node */
import { contribution, runCheck, runChecks, worstStatus } from '../../../../lib/health/run-checks';
import type { HealthCheck, HealthStatus } from '../../../../lib/health/types';

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
    const started = Date.now();
    const observation = await runCheck(slow);
    expect(observation.status).toBe('fail');
    expect(observation.output).toBe('Timed out after 30 ms');
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('turns a throwing check into a fail with the message only', async () => {
    const broken: HealthCheck = {
      ...check('db:x', 'pass'),
      run: () => {
        throw new Error('connection refused');
      },
    };
    const observation = await runCheck(broken);
    expect(observation).toEqual(expect.objectContaining({ status: 'fail', output: 'connection refused' }));
    expect(JSON.stringify(observation)).not.toContain('at ');
  });
});
