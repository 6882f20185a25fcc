import { eventLoopCheck, heapCheck } from '@lib/health/process-checks';
import { defaultSources, healthReport, lastStatusSlot, type ReportSources } from '@lib/health/report';
import { pageCacheStoreSlot } from '@lib/health/page-cache-store';
import { runCheck } from '@lib/health/run-checks';
import type { HealthCheck, HealthStatus, SampledCheck } from '@lib/health/types';
import { resetLifecycle } from '@lib/lifecycle/state';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const SAMPLE = { eventLoopDelayP99Ms: 3, heapUsedRatio: 0.5, sampledAt: NOW, sequence: 1 };

function sources(parts: Partial<ReportSources> = {}): ReportSources {
  return {
    phase: () => 'ready',
    sampled: () => [],
    // Never reuse, unless a test says otherwise.
    sampleVersion: () => -1,
    checks: () => [],
    runCheck: (check) => runCheck(check, () => NOW),
    now: () => NOW,
    uptimeSeconds: () => 42.4,
    version: '1.2.3',
    releaseId: 'abc123',
    ...parts,
  };
}

beforeEach(() => {
  resetLifecycle();
  lastStatusSlot.clear();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => jest.restoreAllMocks());

describe('healthReport', () => {
  it.each(['live', 'ready', 'overall'] as const)(
    'gives every %s observation with a value its unit',
    async (probe) => {
      const dependency: HealthCheck = {
        name: 'db:x',
        componentType: 'datastore',
        critical: true,
        timeoutMs: 50,
        // A check written without types, or cast, that leaves the unit out.
        run: () => ({ status: 'pass', observedValue: 7 }) as unknown as { status: 'pass' },
      };
      const report = await healthReport(
        probe,
        sources({
          sampled: () => [eventLoopCheck(() => SAMPLE), heapCheck(() => SAMPLE)],
          checks: () => [dependency],
        }),
      );
      const observations = Object.values(report.checks).flat();
      expect(observations.length).toBeGreaterThan(0);
      for (const observation of observations) {
        if (observation.observedValue !== undefined)
          expect(observation.observedUnit).toEqual(expect.any(String));
      }
    },
  );

  it('gives liveness with uptime only, whatever the phase', async () => {
    const report = await healthReport('live', sources({ phase: () => 'draining' }));
    expect(report).toEqual({
      status: 'pass',
      version: '1.2.3',
      releaseId: 'abc123',
      description: 'liveness',
      checks: {
        'process:uptime': [
          {
            componentType: 'system',
            observedValue: 42,
            observedUnit: 's',
            status: 'pass',
            time: NOW.toISOString(),
          },
        ],
      },
    });
  });

  it('fails readiness while starting', async () => {
    const report = await healthReport('ready', sources({ phase: () => 'starting' }));
    expect(report.status).toBe('fail');
    expect(report.checks['server:lifecycle']![0]).toEqual(
      expect.objectContaining({
        status: 'fail',
        observedValue: 'starting',
        observedUnit: 'phase',
        output: 'Starting up',
      }),
    );
  });

  it('warns, but stays ready, when a check warns', async () => {
    const warn: HealthCheck = {
      name: 'cache:hitRatio',
      componentType: 'datastore',
      critical: true,
      timeoutMs: 100,
      run: () => ({ status: 'warn', observedValue: 0.2, observedUnit: 'ratio' }),
    };
    const report = await healthReport('ready', sources({ checks: () => [warn] }));
    expect(report.status).toBe('warn');
    expect(Object.keys(report.checks)).toEqual(['server:lifecycle', 'cache:hitRatio']);
  });

  it('reads sampled checks without a timeout, ahead of the dependency checks', async () => {
    const sampled = {
      name: 'eventloop:delay',
      componentType: 'system' as const,
      critical: true,
      read: () => ({ status: 'pass' as const, observedValue: 3, observedUnit: 'ms' }),
    };
    const broken = {
      ...sampled,
      name: 'memory:utilization',
      read: () => {
        throw new Error('no sample');
      },
    };
    const dependency: HealthCheck = {
      name: 'db:x',
      componentType: 'datastore',
      critical: false,
      timeoutMs: 50,
      run: () => ({ status: 'pass' }),
    };
    const report = await healthReport(
      'ready',
      sources({ sampled: () => [sampled, broken], checks: () => [dependency] }),
    );
    expect(Object.keys(report.checks)).toEqual([
      'server:lifecycle',
      'eventloop:delay',
      'memory:utilization',
      'db:x',
    ]);
    expect(report.checks['eventloop:delay']![0]).toEqual({
      componentType: 'system',
      status: 'pass',
      observedValue: 3,
      observedUnit: 'ms',
      time: NOW.toISOString(),
    });
    expect(report.checks['memory:utilization']![0]).toEqual(
      expect.objectContaining({ status: 'fail', output: 'failed' }),
    );
    expect(report.status).toBe('fail');
  });

  it.each([
    ['ready', 'readiness'],
    ['overall', 'overall health'],
  ] as const)('describes the %s probe as %p, with no output while ready', async (probe, description) => {
    const report = await healthReport(probe, sources());
    expect(report.description).toBe(description);
    expect(report.checks['server:lifecycle']).toStrictEqual([
      {
        componentType: 'system',
        observedValue: 'ready',
        observedUnit: 'phase',
        status: 'pass',
        time: NOW.toISOString(),
      },
    ]);
  });

  it('fails readiness while draining, saying so', async () => {
    const report = await healthReport('ready', sources({ phase: () => 'draining' }));
    expect(report.checks['server:lifecycle']![0]).toEqual(
      expect.objectContaining({ status: 'fail', observedValue: 'draining', output: 'Shutting down' }),
    );
  });

  it('logs each change of status at its level, naming the checks that are not passing', async () => {
    const lines = jest.spyOn(process.stderr, 'write');
    const out = jest.spyOn(process.stdout, 'write');
    let status: HealthStatus = 'pass';
    const changing: HealthCheck = {
      name: 'db:x',
      componentType: 'datastore',
      critical: true,
      timeoutMs: 100,
      run: () => ({ status }),
    };
    const steady: HealthCheck = { ...changing, name: 'cache:y', run: () => ({ status: 'pass' }) };
    const src = sources({ checks: () => [steady, changing] });
    for (const next of ['pass', 'warn', 'warn', 'fail', 'pass'] as const) {
      status = next;
      await healthReport('ready', src);
    }
    const logged = [...lines.mock.calls, ...out.mock.calls]
      .map(([chunk]) => JSON.parse(String(chunk)) as Record<string, unknown>)
      .filter((line) => String(line.event).startsWith('health.'))
      .map(({ level, event, from, checks }) => ({ level, event, from, checks }));
    expect(logged).toEqual([
      { level: 'warn', event: 'health.warn', from: 'pass', checks: ['db:x'] },
      { level: 'error', event: 'health.fail', from: 'warn', checks: ['db:x'] },
      { level: 'info', event: 'health.pass', from: 'fail', checks: [] },
    ]);
  });

  it('names a check among the failing when any of its observations fails', async () => {
    const lines = jest.spyOn(process.stderr, 'write');
    // Two checks of one name (two replicas of a dependency): one observation each, under one key.
    const replica = (status: HealthStatus): HealthCheck => ({
      name: 'postgres:responseTime',
      componentType: 'datastore',
      critical: true,
      timeoutMs: 100,
      run: () => ({ status }),
    });
    const report = await healthReport('ready', sources({ checks: () => [replica('pass'), replica('fail')] }));
    expect(report.checks['postgres:responseTime']).toHaveLength(2);
    const failed = lines.mock.calls
      .map(([chunk]) => JSON.parse(String(chunk)) as { event: string; checks?: string[] })
      .find((line) => line.event === 'health.fail');
    expect(failed?.checks).toEqual(['postgres:responseTime']);
  });

  it('logs a transition once, not every probe', async () => {
    const write = jest.spyOn(process.stderr, 'write');
    const failing: HealthCheck = {
      name: 'db:x',
      componentType: 'datastore',
      critical: true,
      timeoutMs: 100,
      run: () => ({ status: 'fail' }),
    };
    await healthReport('ready', sources({ checks: () => [failing] }));
    await healthReport('ready', sources({ checks: () => [failing] }));
    const lines = write.mock.calls
      .map(([chunk]) => String(chunk))
      .filter((line) => line.includes('health.fail'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual(
      expect.objectContaining({ event: 'health.fail', checks: ['db:x'] }),
    );
  });
});

describe('reusing a report while nothing it is built from changes', () => {
  function counted(version: { value: number }, phase: { value: string }) {
    let reads = 0;
    const check: SampledCheck = {
      name: 'eventloop:delay',
      componentType: 'system',
      critical: true,
      read: () => {
        reads += 1;
        return { status: 'pass', observedValue: 1, observedUnit: 'ms' };
      },
    };
    const src = sources({
      phase: () => phase.value,
      sampled: () => [check],
      sampleVersion: () => version.value,
    });
    return { src, reads: () => reads };
  }

  it('reads the samples once per sample version and phase', async () => {
    const version = { value: 7 };
    const phase = { value: 'ready' };
    const { src, reads } = counted(version, phase);
    const first = await healthReport('ready', src);
    expect(await healthReport('ready', src)).toBe(first);
    expect(reads()).toBe(1);

    version.value = 8;
    const second = await healthReport('ready', src);
    expect(second).not.toBe(first);
    expect(reads()).toBe(2);

    phase.value = 'draining';
    const draining = await healthReport('ready', src);
    expect(draining.status).toBe('fail');
    expect(reads()).toBe(3);
  });

  it('reuses a report only for the sources it was built from', async () => {
    const one = counted({ value: 0 }, { value: 'ready' });
    const other = counted({ value: 0 }, { value: 'ready' });
    await healthReport('ready', one.src);
    await healthReport('ready', one.src);
    await healthReport('ready', other.src);
    expect([one.reads(), other.reads()]).toEqual([1, 1]);
  });

  it('never reuses a reading made on the spot (version -1)', async () => {
    const { src, reads } = counted({ value: -1 }, { value: 'ready' });
    await healthReport('ready', src);
    await healthReport('ready', src);
    expect(reads()).toBe(2);
  });

  it('runs dependency checks on every probe', async () => {
    let runs = 0;
    const dependency: HealthCheck = {
      name: 'db:x',
      componentType: 'datastore',
      critical: true,
      timeoutMs: 50,
      run: () => {
        runs += 1;
        return { status: 'pass' };
      },
    };
    const src = sources({ sampleVersion: () => 1, checks: () => [dependency] });
    await healthReport('ready', src);
    await healthReport('ready', src);
    expect(runs).toBe(2);
  });

  it('gives liveness a new uptime each second', async () => {
    let uptime = 10.2;
    const src = sources({ uptimeSeconds: () => uptime });
    const first = await healthReport('live', src);
    expect(await healthReport('live', src)).toBe(first);
    uptime = 11.1;
    const later = await healthReport('live', src);
    expect(later.checks['process:uptime']![0]!.observedValue).toBe(11);
  });
});

describe("the default sources' sampled checks", () => {
  afterEach(() => pageCacheStoreSlot.clear());

  it('are the process checks alone without a page cache store, and add its check with one', () => {
    pageCacheStoreSlot.clear();
    expect(defaultSources.sampled().map((check) => check.name)).toEqual([
      'eventloop:delay',
      'memory:utilization',
    ]);
    pageCacheStoreSlot.write({ up: () => false, close: async () => {} });
    expect(defaultSources.sampled().map((check) => check.name)).toEqual([
      'eventloop:delay',
      'memory:utilization',
      'page-cache:store',
    ]);
  });
});
