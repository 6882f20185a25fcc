// Checks of the process itself, sampled in the background so a probe only reads two numbers.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { CheckResult, HealthStatus, SampledCheck } from './types';

const SAMPLE_EVERY_MS = 1000;
/** The event-loop delay reported is the worst per-second p99 over this many seconds. */
const WINDOW_SECONDS = 5;

export interface Thresholds {
  warn: number;
  fail: number;
}

export function grade(value: number, { warn, fail }: Thresholds): HealthStatus {
  if (value >= fail) return 'fail';
  if (value >= warn) return 'warn';
  return 'pass';
}

function thresholdsFromEnv(prefix: string, defaults: Thresholds): Thresholds {
  const warn = Number(process.env[`${prefix}_WARN`]);
  const fail = Number(process.env[`${prefix}_FAIL`]);
  return {
    warn: Number.isFinite(warn) && warn > 0 ? warn : defaults.warn,
    fail: Number.isFinite(fail) && fail > 0 ? fail : defaults.fail,
  };
}

export const EVENT_LOOP_DELAY_MS = thresholdsFromEnv('HEALTH_EVENT_LOOP_DELAY_MS', { warn: 200, fail: 1000 });
export const HEAP_USED_RATIO = thresholdsFromEnv('HEALTH_HEAP_USED_RATIO', { warn: 0.85, fail: 0.95 });

export interface ProcessSample {
  eventLoopDelayP99Ms: number;
  heapUsedRatio: number;
  sampledAt: Date;
}

interface Sampler {
  latest: () => ProcessSample;
}

function createSampler(): Sampler {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const recentP99s: number[] = [];
  let heapUsedRatio = 0;
  let sampledAt = new Date();

  const sample = () => {
    const p99 = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
    histogram.reset();
    recentP99s.push(p99);
    if (recentP99s.length > WINDOW_SECONDS) recentP99s.shift();
    const heap = getHeapStatistics();
    heapUsedRatio = heap.used_heap_size / heap.heap_size_limit;
    sampledAt = new Date();
  };
  sample();
  setInterval(sample, SAMPLE_EVERY_MS).unref();

  return {
    latest: () => {
      // A delay still building up in the current second counts too: after a long block the first
      // probe must see it, not wait for the next sample.
      const current = histogram.count > 0 ? histogram.percentile(99) / 1e6 : 0;
      return {
        eventLoopDelayP99Ms: Math.max(current, ...recentP99s),
        heapUsedRatio,
        sampledAt,
      };
    },
  };
}

/** The process checks, made once: they read the shared sampler each time. */
export const processChecks: readonly SampledCheck[] = [eventLoopCheck(), heapCheck()];

// One sampler per process, however many bundles load this module.
const KEY = Symbol.for('app-shell.process-sampler');

export function processSampler(): Sampler {
  const holder = globalThis as unknown as Record<symbol, Sampler | undefined>;
  return (holder[KEY] ??= createSampler());
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

export function eventLoopCheck(sampler: () => ProcessSample = () => processSampler().latest()): SampledCheck {
  return {
    name: 'eventloop:delay',
    componentType: 'system',
    critical: true,
    read: (): CheckResult => {
      const value = sampler().eventLoopDelayP99Ms;
      const status = grade(value, EVENT_LOOP_DELAY_MS);
      return {
        status,
        observedValue: round(value, 1),
        observedUnit: 'ms',
        ...(status === 'pass' ? {} : { output: `Event-loop delay p99 over ${WINDOW_SECONDS} s is high` }),
      };
    },
  };
}

export function heapCheck(sampler: () => ProcessSample = () => processSampler().latest()): SampledCheck {
  return {
    name: 'memory:utilization',
    componentType: 'system',
    critical: true,
    read: (): CheckResult => {
      const value = sampler().heapUsedRatio;
      const status = grade(value, HEAP_USED_RATIO);
      return {
        status,
        observedValue: round(value * 100, 1),
        observedUnit: 'percent',
        ...(status === 'pass' ? {} : { output: 'Heap used is close to the heap limit' }),
      };
    },
  };
}
