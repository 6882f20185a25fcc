// The three health endpoints and the report each one gives.
import { currentPhase } from '../lifecycle/state';
import { log } from '../log/json-line';
import { dependencyChecks } from './dependencies';
import { processChecks } from './process-checks';
import { runChecks, worstStatus } from './run-checks';
import type { CheckObservation, HealthCheck, HealthReport, HealthStatus, SampledCheck } from './types';

/** `live`: the process runs. `ready`: send it traffic. `overall`: for uptime monitors. */
export type Probe = 'live' | 'ready' | 'overall';

const BASE_PATH = '/api/health';

/** The probe a path asks for, or null for anything else under /api/health/. Query strings are ignored. */
export function probeForPath(url: string | undefined): Probe | null {
  const pathname = (url ?? '').split('?')[0]!.replace(/\/+$/, '');
  if (pathname === BASE_PATH) return 'overall';
  if (pathname === `${BASE_PATH}/live`) return 'live';
  if (pathname === `${BASE_PATH}/ready`) return 'ready';
  return null;
}

export interface ReportSources {
  phase: () => string;
  /** Read from background samples on every probe. */
  sampled: () => readonly SampledCheck[];
  /** Dependency checks, each run within its own timeout. */
  checks: () => readonly HealthCheck[];
  now: () => Date;
  uptimeSeconds: () => number;
  version: string;
  releaseId: string;
}

export const defaultSources: ReportSources = {
  phase: currentPhase,
  sampled: () => processChecks,
  checks: () => dependencyChecks,
  now: () => new Date(),
  uptimeSeconds: () => process.uptime(),
  // Inlined at build time by next.config.js.
  version: process.env.APP_VERSION ?? '0.0.0',
  releaseId: process.env.APP_RELEASE ?? 'unknown',
};

function lifecycleObservation(phase: string, now: Date): CheckObservation {
  return {
    componentType: 'system',
    observedValue: phase,
    status: phase === 'ready' ? 'pass' : 'fail',
    time: now.toISOString(),
    ...(phase === 'ready' ? {} : { output: phase === 'draining' ? 'Shutting down' : 'Starting up' }),
  };
}

// The last status of the checks, to log transitions only (healthy probes are not logged).
const LAST_STATUS = Symbol.for('app-shell.health.last-status');

function logTransition(status: HealthStatus, checks: Record<string, CheckObservation[]>) {
  const holder = globalThis as unknown as Record<symbol, HealthStatus | undefined>;
  const previous = holder[LAST_STATUS] ?? 'pass';
  holder[LAST_STATUS] = status;
  if (previous === status) return;
  const failing = Object.entries(checks)
    .filter(([, observations]) => observations.some((o) => o.status !== 'pass'))
    .map(([name]) => name);
  log(status === 'pass' ? 'info' : status === 'warn' ? 'warn' : 'error', `health.${status}`, {
    from: previous,
    checks: failing,
  });
}

export async function healthReport(
  probe: Probe,
  sources: ReportSources = defaultSources,
): Promise<HealthReport> {
  const now = sources.now();
  const base = { version: sources.version, releaseId: sources.releaseId };

  if (probe === 'live') {
    // Depends on nothing outside the process: answering at all is the proof of life.
    return {
      status: 'pass',
      ...base,
      description: 'liveness',
      checks: {
        'process:uptime': [
          {
            componentType: 'system',
            observedValue: Math.round(sources.uptimeSeconds()),
            observedUnit: 's',
            status: 'pass',
            time: now.toISOString(),
          },
        ],
      },
    };
  }

  const outcome = await runChecks(sources.checks(), sources.sampled(), sources.now);
  logTransition(outcome.status, outcome.checks);
  const lifecycle = lifecycleObservation(sources.phase(), now);
  const status = worstStatus([outcome.status, lifecycle.status]);
  return {
    status,
    ...base,
    description: probe === 'ready' ? 'readiness' : 'overall health',
    checks: { 'server:lifecycle': [lifecycle], ...outcome.checks },
  };
}
