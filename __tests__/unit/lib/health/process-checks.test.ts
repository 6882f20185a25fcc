import { createSampler } from '../../../../lib/health/process-checks';

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
