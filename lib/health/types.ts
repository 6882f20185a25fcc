// The health report's shape, after the IETF draft "Health Check Response Format for HTTP APIs"
// (draft-inadarei-api-health-check-06).

export type HealthStatus = 'pass' | 'warn' | 'fail';

/** One observation, as it appears under `checks` in the report. */
export interface CheckObservation {
  componentType?: 'component' | 'datastore' | 'system';
  observedValue?: number | string | boolean;
  observedUnit?: string;
  status: HealthStatus;
  /** When the value was observed (ISO 8601). */
  time: string;
  /** Why a check did not pass. Never a stack trace, host name or path. */
  output?: string;
}

/**
 * Why a dependency check failed, as a kind: `/api/health` is public, and an error's own message
 * (`connect ECONNREFUSED 10.0.3.7:5432`) names hosts and addresses.
 */
export type FailureKind = 'timeout' | 'connection refused' | 'failed';

/** A value comes with its unit (the health draft: observedUnit SHOULD be present with it). */
type Observed =
  | { observedValue: number | string | boolean; observedUnit: string }
  | { observedValue?: undefined; observedUnit?: undefined };

/**
 * What a dependency check's `run` returns; `time` and `componentType` are filled in for it. To fail
 * with a reason, throw (the error's kind is reported, never its message) or give a kind.
 */
export type CheckResult = Observed & { status: HealthStatus; output?: FailureKind };

/** What a background-sampled process check returns: its output is a fixed sentence of ours. */
export type SampledResult = Observed & { status: HealthStatus; output?: string };

export interface HealthCheck {
  /** The report key, `component:measurement`, e.g. `postgres:responseTime`. */
  name: string;
  componentType: 'component' | 'datastore' | 'system';
  /**
   * A critical check's fail makes the whole report fail (readiness 503, the replica leaves the
   * load balancer). A non-critical one's fail only makes it warn.
   */
  critical: boolean;
  /** After this the check counts as failed, so the probe itself never times out. */
  timeoutMs: number;
  run: (signal: AbortSignal) => CheckResult | Promise<CheckResult>;
}

/**
 * A check that only reads a value sampled in the background (event-loop delay, heap): no I/O, so
 * no timeout and no AbortController, which would cost more than the check itself on every probe.
 */
export interface SampledCheck {
  name: string;
  componentType: 'component' | 'datastore' | 'system';
  critical: boolean;
  read: () => SampledResult;
}

export interface HealthReport {
  status: HealthStatus;
  version: string;
  releaseId: string;
  description?: string;
  checks: Record<string, CheckObservation[]>;
  output?: string;
}

/** What the background sampler of the process last read (lib/health/process-checks.ts). */
export interface ProcessSample {
  eventLoopDelayP99Ms: number;
  heapUsedRatio: number;
  sampledAt: Date;
  /**
   * Counts samples; equal numbers mean equal readings, so a report built from them can be reused.
   * -1 marks a reading made on the spot, never reused.
   */
  sequence: number;
}

export interface ProcessSampler {
  latest: () => ProcessSample;
}
