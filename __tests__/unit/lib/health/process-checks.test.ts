import { createSampler, eventLoopCheck, heapCheck } from '@lib/health/process-checks';
import type { ProcessSample } from '@lib/health/types';

beforeEach(() => jest.useFakeTimers({ now: new Date('2026-11-22T12:00:00.000Z') }));
afterEach(() => jest.useRealTimers());

describe('the background sampler', () => {
  it('gives the same sample, and the same version, until its next tick', () => {
    const sampler = createSampler();
    const first = sampler.latest();
    expect(first.sequence).toBeGreaterThan(0);
    jest.setSystemTime(Date.now() + 500);
    expect(sampler.latest()).toBe(first);
    jest.advanceTimersByTime(1000);
    const next = sampler.latest();
    expect(next.sequence).toBe(first.sequence + 1);
    expect(next.sampledAt.getTime()).toBeGreaterThan(first.sampledAt.getTime());
  });

  it('reports its own late tick at once, never reused, when the event loop was held up', () => {
    const sampler = createSampler();
    // The clock moves on 2.5 s while no timer runs: what a blocked event loop looks like.
    jest.setSystemTime(Date.now() + 2500);
    const reading = sampler.latest();
    expect(reading.sequence).toBe(-1);
    expect(reading.eventLoopDelayP99Ms).toBe(1500);
  });

  it('treats a tick up to 20 ms late as jitter', () => {
    const sampler = createSampler();
    const first = sampler.latest();
    jest.setSystemTime(Date.now() + 1020);
    expect(sampler.latest()).toBe(first);
  });
});

describe('what the sampler reads', () => {
  /** A histogram that reports the delays the test sets, one second at a time, in nanoseconds. */
  function madeUpSources(heap = { used_heap_size: 30, heap_size_limit: 120 }) {
    let p99Ns = 0;
    let count = 0;
    const sources = {
      delay: {
        get count() {
          return count;
        },
        // What Node 20's empty histogram says: not 0.
        percentile: () => (count > 0 ? p99Ns : 511),
        reset: () => {
          count = 0;
        },
        enable: () => true,
      },
      heap: () => heap,
    };
    /** The next second's delay, then its tick. */
    const second = (ms: number | null) => {
      count = ms === null ? 0 : 100;
      p99Ns = (ms ?? 0) * 1e6;
      jest.advanceTimersByTime(1000);
    };
    return { sources, second };
  }

  it('is the worst per-second p99 of the last five seconds, 0 for a second with no reading', () => {
    const { sources, second } = madeUpSources();
    const sampler = createSampler(sources);
    expect(sampler.latest().eventLoopDelayP99Ms).toBe(0);
    second(50);
    expect(sampler.latest().eventLoopDelayP99Ms).toBe(50);
    const seen = [];
    for (const ms of [5, 6, 7, 8, 9, null]) {
      second(ms);
      seen.push(sampler.latest().eventLoopDelayP99Ms);
    }
    // The 50 ms second stays for five samples, then the worst of the five after it.
    expect(seen).toEqual([50, 50, 50, 50, 9, 9]);
    second(null);
    second(null);
    second(null);
    second(null);
    expect(sampler.latest().eventLoopDelayP99Ms).toBe(0);
  });

  it('gives the heap used as a share of its limit', () => {
    const { sources } = madeUpSources({ used_heap_size: 30, heap_size_limit: 120 });
    expect(createSampler(sources).latest().heapUsedRatio).toBe(0.25);
  });
});

describe('the process checks', () => {
  const sample = (over: Partial<ProcessSample>): ProcessSample => ({
    eventLoopDelayP99Ms: 0,
    heapUsedRatio: 0,
    sampledAt: new Date(),
    sequence: 1,
    ...over,
  });

  it.each([
    [199.94, { status: 'pass', observedValue: 199.9, observedUnit: 'ms' }],
    [
      200,
      {
        status: 'warn',
        observedValue: 200,
        observedUnit: 'ms',
        output: 'Event-loop delay p99 over 5 s is high',
      },
    ],
    [
      1000,
      {
        status: 'fail',
        observedValue: 1000,
        observedUnit: 'ms',
        output: 'Event-loop delay p99 over 5 s is high',
      },
    ],
  ])('event-loop delay of %p ms', (ms, result) => {
    const check = eventLoopCheck(
      () => sample({ eventLoopDelayP99Ms: ms }),
      () => ({ warn: 200, fail: 1000 }),
    );
    expect(check.read()).toEqual(result);
    expect([check.name, check.componentType, check.critical]).toEqual(['eventloop:delay', 'system', true]);
  });

  it.each([
    [0.84994, { status: 'pass', observedValue: 85, observedUnit: 'percent' }],
    [
      0.85,
      {
        status: 'warn',
        observedValue: 85,
        observedUnit: 'percent',
        output: 'Heap used is close to the heap limit',
      },
    ],
    [
      0.95,
      {
        status: 'fail',
        observedValue: 95,
        observedUnit: 'percent',
        output: 'Heap used is close to the heap limit',
      },
    ],
  ])('heap used ratio of %p', (ratio, result) => {
    const check = heapCheck(
      () => sample({ heapUsedRatio: ratio }),
      () => ({ warn: 0.85, fail: 0.95 }),
    );
    expect(check.read()).toEqual(result);
    expect([check.name, check.componentType, check.critical]).toEqual(['memory:utilization', 'system', true]);
  });
});
