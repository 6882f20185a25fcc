// The report each of the three health endpoints gives. A report is reused for as long as nothing
// it is built from can have changed (same lifecycle phase, same background sample, no dependency
// checks to run), so a probe usually costs a comparison, not a computation.
import { appVersion, release } from '../config/build-values';
import { settings } from '../config/settings';
import { currentPhase } from '../lifecycle/state';
import { log } from '../log/logger';
import { processSlot } from '../process/slots';
import { dependencyChecks } from './dependencies';
import { pageCacheChecks } from './page-cache-store';
import { processChecks, processSampleVersion } from './process-checks';
import { type CheckRunner, runChecks, sharedCheckRunner, worstStatus } from './run-checks';
import type { CheckObservation, HealthCheck, HealthReport, HealthStatus, SampledCheck } from './types';

/** The last status of the checks, to log transitions only. */
export const lastStatusSlot = processSlot<HealthStatus>('healthLastStatus');

import type { Probe } from './probes';

export { PROBE_PATHS, type Probe } from './probes';

export interface ReportSources {
  phase: () => string;
  /** Read from background samples on every computed report. */
  sampled: () => readonly SampledCheck[];
  /**
   * Changes whenever a sampled reading may have: a report is reused while it and the phase stay
   * the same. -1 means "do not reuse".
   */
  sampleVersion: () => number;
  /** Dependency checks, each run within its own timeout. */
  checks: () => readonly HealthCheck[];
  /** How a dependency check is run: shared between concurrent probes and reused for a moment. */
  runCheck: CheckRunner;
  now: () => Date;
  uptimeSeconds: () => number;
  version: string;
  releaseId: string;
}

export const defaultSources: ReportSources = {
  phase: currentPhase,
  // The page cache store's check joins when PAGE_CACHE_URL names one (lib/health/page-cache-store.ts).
  sampled: () => [...processChecks, ...pageCacheChecks()],
  sampleVersion: processSampleVersion,
  checks: () => dependencyChecks,
  runCheck: sharedCheckRunner(() => settings().checkReuseMs),
  now: () => new Date(),
  uptimeSeconds: () => process.uptime(),
  version: appVersion(),
  releaseId: release(),
};

function lifecycleObservation(phase: string, now: Date): CheckObservation {
  return {
    componentType: 'system',
    observedValue: phase,
    observedUnit: 'phase',
    status: phase === 'ready' ? 'pass' : 'fail',
    time: now.toISOString(),
    ...(phase === 'ready' ? {} : { output: phase === 'draining' ? 'Shutting down' : 'Starting up' }),
  };
}

function logTransition(status: HealthStatus, checks: Record<string, CheckObservation[]>) {
  const previous = lastStatusSlot.read() ?? 'pass';
  lastStatusSlot.write(status);
  if (previous === status) return;
  const failing = Object.entries(checks)
    .filter(([, observations]) => observations.some((o) => o.status !== 'pass'))
    .map(([name]) => name);
  log(status === 'pass' ? 'info' : status === 'warn' ? 'warn' : 'error', `health.${status}`, {
    from: previous,
    checks: failing,
  });
}

function liveReport(sources: ReportSources, uptimeSeconds: number): HealthReport {
  // Depends on nothing outside the process: answering at all is the proof of life.
  return {
    status: 'pass',
    version: sources.version,
    releaseId: sources.releaseId,
    description: 'liveness',
    checks: {
      'process:uptime': [
        {
          componentType: 'system',
          observedValue: uptimeSeconds,
          observedUnit: 's',
          status: 'pass',
          time: sources.now().toISOString(),
        },
      ],
    },
  };
}

async function checkedReport(probe: 'ready' | 'overall', sources: ReportSources): Promise<HealthReport> {
  const outcome = await runChecks(sources.checks(), sources.sampled(), sources.now, sources.runCheck);
  logTransition(outcome.status, outcome.checks);
  const lifecycle = lifecycleObservation(sources.phase(), sources.now());
  return {
    status: worstStatus([outcome.status, lifecycle.status]),
    version: sources.version,
    releaseId: sources.releaseId,
    description: probe === 'ready' ? 'readiness' : 'overall health',
    checks: { 'server:lifecycle': [lifecycle], ...outcome.checks },
  };
}

interface Reusable {
  sources: ReportSources;
  key: string;
  report: Promise<HealthReport>;
}

const reusable: Partial<Record<Probe, Reusable>> = {};

/** What a report is built from, as one string, or null when it must be computed afresh. */
function reuseKey(probe: Probe, sources: ReportSources, uptimeSeconds: number): string | null {
  if (probe === 'live') return String(uptimeSeconds);
  if (sources.checks().length > 0) return null;
  const version = sources.sampleVersion();
  return version === -1 ? null : `${sources.phase()}:${version}`;
}

export function healthReport(probe: Probe, sources: ReportSources = defaultSources): Promise<HealthReport> {
  const uptimeSeconds = Math.round(sources.uptimeSeconds());
  const key = reuseKey(probe, sources, uptimeSeconds);
  const last = reusable[probe];
  // Only a key is kept (below), so a null key never matches.
  if (last?.key === key && last.sources === sources) return last.report;
  const report =
    probe === 'live' ? Promise.resolve(liveReport(sources, uptimeSeconds)) : checkedReport(probe, sources);
  if (key !== null) reusable[probe] = { sources, key, report };
  return report;
}
