// Runs health checks in parallel, each bounded by its own timeout, and folds them into one status.
import type { CheckObservation, HealthCheck, HealthStatus, SampledCheck } from './types';

const RANK: Record<HealthStatus, number> = { pass: 0, warn: 1, fail: 2 };

export function worstStatus(statuses: Iterable<HealthStatus>): HealthStatus {
  let worst: HealthStatus = 'pass';
  for (const status of statuses) if (RANK[status] > RANK[worst]) worst = status;
  return worst;
}

/** A non-critical check cannot make the whole report worse than warn. */
export function contribution(check: Pick<HealthCheck, 'critical'>, status: HealthStatus): HealthStatus {
  return !check.critical && status === 'fail' ? 'warn' : status;
}

export async function runCheck(
  check: HealthCheck,
  now: () => Date = () => new Date(),
): Promise<CheckObservation> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<CheckObservation>((resolve) => {
    timer = setTimeout(() => {
      controller.abort();
      resolve({
        componentType: check.componentType,
        status: 'fail',
        time: now().toISOString(),
        output: `Timed out after ${check.timeoutMs} ms`,
      });
    }, check.timeoutMs);
  });
  const attempt = (async (): Promise<CheckObservation> => {
    try {
      const result = await check.run(controller.signal);
      return { componentType: check.componentType, ...result, time: now().toISOString() };
    } catch (error) {
      // The message only: a stack trace could reveal file paths.
      const message = error instanceof Error ? error.message : String(error);
      return {
        componentType: check.componentType,
        status: 'fail',
        time: now().toISOString(),
        output: message,
      };
    }
  })();
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface ChecksOutcome {
  status: HealthStatus;
  checks: Record<string, CheckObservation[]>;
}

function readSampled(check: SampledCheck, time: string): CheckObservation {
  try {
    return { componentType: check.componentType, ...check.read(), time };
  } catch (error) {
    return {
      componentType: check.componentType,
      status: 'fail',
      time,
      output: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * Sampled checks are read synchronously; the others run in parallel, each within its timeout.
 * Keys keep the order given: sampled first, then the rest.
 */
export async function runChecks(
  checks: readonly HealthCheck[],
  sampled: readonly SampledCheck[] = [],
  now: () => Date = () => new Date(),
): Promise<ChecksOutcome> {
  const time = now().toISOString();
  const result: Record<string, CheckObservation[]> = {};
  const contributions: HealthStatus[] = [];
  const add = (check: { name: string; critical: boolean }, observation: CheckObservation) => {
    (result[check.name] ??= []).push(observation);
    contributions.push(contribution(check, observation.status));
  };
  for (const check of sampled) add(check, readSampled(check, time));
  if (checks.length > 0) {
    const observations = await Promise.all(checks.map((check) => runCheck(check, now)));
    checks.forEach((check, index) => add(check, observations[index]!));
  }
  return { status: worstStatus(contributions), checks: result };
}
