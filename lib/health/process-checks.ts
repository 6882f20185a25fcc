// Checks of the process itself, sampled in the background once a second, so a probe reads a few
// numbers and computes nothing.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { getHeapStatistics, type HeapInfo } from 'node:v8';
import { settings, thresholdsOf, type Thresholds } from '../config/settings';
import { processSlot } from '../process/slots';
import type { HealthStatus, ProcessSample, ProcessSampler, SampledCheck, SampledResult } from './types';

/** The background sampler of event-loop delay and heap. */
export const samplerSlot = processSlot<ProcessSampler>('processSampler');

const SAMPLE_EVERY_MS = 1000;
/** The event-loop delay reported is the worst per-second p99 over this many seconds. */
const WINDOW_SECONDS = 5;
/**
 * How late the sampler's own timer may run before a probe reports that lateness itself: up to this,
 * it is ordinary timer jitter under load, and the next sample records it.
 */
const OVERDUE_SLACK_MS = 20;

export function grade(value: number, { warn, fail }: Thresholds): HealthStatus {
  if (value >= fail) return 'fail';
  if (value >= warn) return 'warn';
  return 'pass';
}

/** What the sampler reads: Node's own in production, made-up numbers in tests. */
export interface SamplerSources {
  /** Event-loop delay, in nanoseconds, since the last reset. */
  delay: Pick<IntervalHistogram, 'count' | 'percentile' | 'reset' | 'enable'>;
  heap: () => Pick<HeapInfo, 'used_heap_size' | 'heap_size_limit'>;
}

const nodeSources = (): SamplerSources => ({
  delay: monitorEventLoopDelay(), // sampled every 10 ms, Node's default
  heap: getHeapStatistics,
});

export function createSampler(
  { delay: histogram, heap: heapStatistics }: SamplerSources = nodeSources(),
): ProcessSampler {
  histogram.enable();
  const recentP99s: number[] = [];
  let current: ProcessSample;
  let sequence = 0;

  const sample = () => {
    // An empty histogram's p99 is not 0 (Node 20 says 511 ns): a second with no reading is 0.
    const p99 = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
    recentP99s.push(p99);
    if (recentP99s.length > WINDOW_SECONDS) recentP99s.shift();
    const heap = heapStatistics();
    sequence += 1;
    current = {
      eventLoopDelayP99Ms: Math.max(...recentP99s),
      heapUsedRatio: heap.used_heap_size / heap.heap_size_limit,
      sampledAt: new Date(),
      sequence,
    };
  };
  sample();
  setInterval(sample, SAMPLE_EVERY_MS).unref();

  return {
    latest: () => {
      // The sampler's timer is due every second; when it is late, the event loop has been held up
      // at least that long. A probe answered right after a long block sees that at once instead
      // of waiting for the next sample.
      const overdueMs = Date.now() - current.sampledAt.getTime() - SAMPLE_EVERY_MS;
      if (overdueMs <= Math.max(current.eventLoopDelayP99Ms, OVERDUE_SLACK_MS)) return current;
      return { ...current, eventLoopDelayP99Ms: overdueMs, sampledAt: new Date(), sequence: -1 };
    },
  };
}

/** One sampler per process, however many bundles load this module. */
export function processSampler(): ProcessSampler {
  return samplerSlot.getOrCreate(createSampler);
}

const latestSample = () => processSampler().latest();

const round = (value: number, digits: number) => Number(value.toFixed(digits));

export function eventLoopCheck(
  sampler: () => ProcessSample = latestSample,
  thresholds: () => Thresholds = () => thresholdsOf('eventLoopDelay', settings()),
): SampledCheck {
  return {
    name: 'eventloop:delay',
    componentType: 'system',
    critical: true,
    read: (): SampledResult => {
      const value = sampler().eventLoopDelayP99Ms;
      const status = grade(value, thresholds());
      return {
        status,
        observedValue: round(value, 1),
        observedUnit: 'ms',
        ...(status === 'pass' ? {} : { output: `Event-loop delay p99 over ${WINDOW_SECONDS} s is high` }),
      };
    },
  };
}

export function heapCheck(
  sampler: () => ProcessSample = latestSample,
  thresholds: () => Thresholds = () => thresholdsOf('heapUsed', settings()),
): SampledCheck {
  return {
    name: 'memory:utilization',
    componentType: 'system',
    critical: true,
    read: (): SampledResult => {
      const value = sampler().heapUsedRatio;
      const status = grade(value, thresholds());
      return {
        status,
        observedValue: round(value * 100, 1),
        observedUnit: 'percent',
        ...(status === 'pass' ? {} : { output: 'Heap used is close to the heap limit' }),
      };
    },
  };
}

/** The process checks, made once: they read the shared sampler each time. */
export const processChecks: readonly SampledCheck[] = [eventLoopCheck(), heapCheck()];

/** What the process checks' readings depend on: equal versions, equal readings. */
export function processSampleVersion(): number {
  return latestSample().sequence;
}
