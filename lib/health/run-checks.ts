// Runs health checks in parallel, each bounded by its own timeout, and folds them into one status.
// What leaves here is public (/api/health): a failure is reported as its kind, never its message.
import type {
  CheckObservation,
  CheckResult,
  FailureKind,
  HealthCheck,
  HealthStatus,
  SampledCheck,
} from './types';

const KINDS: ReadonlySet<string> = new Set<FailureKind>(['timeout', 'connection refused', 'failed']);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/**
 * The kind of a thrown error, looking through `cause` (fetch wraps its network errors) and
 * `errors` (a connection tried on several addresses fails with an AggregateError).
 */
export function failureKind(error: unknown, depth = 0): FailureKind {
  // (A thrown value that is no object has none of the fields read below.)
  if (!error || depth > 3) return 'failed';
  const { name, code, cause, errors } = error as {
    name?: unknown;
    code?: unknown;
    cause?: unknown;
    errors?: unknown;
  };
  if (name === 'AbortError' || name === 'TimeoutError' || TIMEOUT_CODES.has(String(code))) return 'timeout';
  if (code === 'ECONNREFUSED') return 'connection refused';
  const inner = (Array.isArray(errors) ? [cause, ...errors] : [cause]).map((e) => failureKind(e, depth + 1));
  return inner.find((kind) => kind !== 'failed') ?? 'failed';
}

/** A check's own result, kept to what the report may carry. */
function publicResult(result: CheckResult): CheckResult {
  // Checks written in JavaScript, or cast, can still hand back a raw message or a bare value.
  const output =
    result.output === undefined ? undefined : KINDS.has(result.output) ? result.output : 'failed';
  const observed =
    result.observedValue !== undefined && typeof result.observedUnit === 'string'
      ? { observedValue: result.observedValue, observedUnit: result.observedUnit }
      : {};
  return { status: result.status, ...observed, ...(output ? { output } : {}) };
}

/** Best to worst. */
const ORDER: readonly HealthStatus[] = ['pass', 'warn', 'fail'];

export function worstStatus(statuses: Iterable<HealthStatus>): HealthStatus {
  return ORDER[Math.max(0, ...Array.from(statuses, (status) => ORDER.indexOf(status)))]!;
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
        output: 'timeout',
      });
    }, check.timeoutMs);
  });
  const attempt = (async (): Promise<CheckObservation> => {
    try {
      const result = await check.run(controller.signal);
      return { componentType: check.componentType, ...publicResult(result), time: now().toISOString() };
    } catch (error) {
      return {
        componentType: check.componentType,
        status: 'fail',
        time: now().toISOString(),
        output: failureKind(error),
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
  } catch {
    return { componentType: check.componentType, status: 'fail', time, output: 'failed' };
  }
}

export type CheckRunner = (check: HealthCheck) => Promise<CheckObservation>;

/**
 * Runs each check at most once at a time however many probes ask (single-flight), and lets its
 * result answer the probes of the next `reuseMs` too: a probe storm costs one run per check.
 */
export function sharedCheckRunner(
  reuseMs: () => number,
  clock: () => number = () => performance.now(),
  run: CheckRunner = (check) => runCheck(check),
): CheckRunner {
  const runs = new WeakMap<HealthCheck, { result: Promise<CheckObservation>; finishedAt: number | null }>();
  return (check) => {
    const last = runs.get(check);
    if (last && (last.finishedAt === null || clock() - last.finishedAt < reuseMs())) return last.result;
    const entry = { result: run(check), finishedAt: null as number | null };
    // runCheck never rejects; should a runner reject, the failure is handled and not kept.
    entry.result.then(
      () => (entry.finishedAt = clock()),
      () => runs.delete(check),
    );
    runs.set(check, entry);
    return entry.result;
  };
}

/**
 * Sampled checks are read synchronously; the others run in parallel, each within its timeout.
 * Keys keep the order given: sampled first, then the rest.
 */
export async function runChecks(
  checks: readonly HealthCheck[],
  sampled: readonly SampledCheck[] = [],
  now: () => Date = () => new Date(),
  run: CheckRunner = (check) => runCheck(check, now),
): Promise<ChecksOutcome> {
  const time = now().toISOString();
  const result: Record<string, CheckObservation[]> = {};
  const contributions: HealthStatus[] = [];
  const add = (check: { name: string; critical: boolean }, observation: CheckObservation) => {
    (result[check.name] ??= []).push(observation);
    contributions.push(contribution(check, observation.status));
  };
  for (const check of sampled) add(check, readSampled(check, time));
  const observations = await Promise.all(checks.map(run));
  checks.forEach((check, index) => add(check, observations[index]!));
  return { status: worstStatus(contributions), checks: result };
}
