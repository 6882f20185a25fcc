// What /livez and /readyz answer, from the latest heartbeat alone (no I/O, so the worker answers in
// microseconds whatever the main loop is doing). The body has the format of /api/health/*.
import type { HealthReport, HealthStatus } from '../health/types';
import type { Beat } from './heartbeat';

export interface ManagementLimits {
  /** Older than this, the main loop counts as wedged: /livez fails. */
  wedgeMs: number;
  /** Event-loop delay p99 (ms) at which readiness warns and fails, as for /api/health/ready. */
  loopDelay: { warn: number; fail: number };
}

export interface Identity {
  version: string;
  releaseId: string;
}

function report(
  description: string,
  status: HealthStatus,
  identity: Identity,
  checks: HealthReport['checks'],
): HealthReport {
  return { status, version: identity.version, releaseId: identity.releaseId, description, checks };
}

function heartbeatCheck(beat: Beat | null, now: number, limitMs: number) {
  const ageMs = beat ? Math.max(0, Math.round(now - beat.at)) : null;
  const status: HealthStatus = ageMs !== null && ageMs <= limitMs ? 'pass' : 'fail';
  return {
    ageMs,
    status,
    observation: {
      componentType: 'system' as const,
      ...(ageMs === null ? { output: 'No heartbeat yet' } : { observedValue: ageMs, observedUnit: 'ms' }),
      status,
      time: new Date(now).toISOString(),
    },
  };
}

/** Alive while the main loop has beaten within the wedge limit: busy is alive, wedged is not. */
export function decideLive(beat: Beat | null, now: number, limits: ManagementLimits, identity: Identity) {
  const heartbeat = heartbeatCheck(beat, now, limits.wedgeMs);
  return report('liveness (management)', heartbeat.status, identity, {
    'mainloop:heartbeatAge': [heartbeat.observation],
  });
}

/**
 * Ready when readiness, as the main loop last decided it (lifecycle phase, checks, event-loop
 * delay against its thresholds), is not fail, and that decision is fresh.
 */
export function decideReady(beat: Beat | null, now: number, limits: ManagementLimits, identity: Identity) {
  // A heartbeat older than the delay's fail threshold means a delay at least that long now.
  const heartbeat = heartbeatCheck(beat, now, limits.loopDelay.fail);
  const phase = beat?.phase ?? 'starting';
  const decided: HealthStatus = beat?.status ?? 'fail';
  const phaseStatus: HealthStatus = phase === 'ready' ? 'pass' : 'fail';
  const delayMs = beat ? Math.round(beat.loopDelayMs) : 0;
  const delayStatus: HealthStatus =
    delayMs >= limits.loopDelay.fail ? 'fail' : delayMs >= limits.loopDelay.warn ? 'warn' : 'pass';
  const statuses = [heartbeat.status, phaseStatus, decided, delayStatus];
  const status: HealthStatus = statuses.includes('fail')
    ? 'fail'
    : statuses.includes('warn')
      ? 'warn'
      : 'pass';
  const time = new Date(now).toISOString();
  return report('readiness (management)', status, identity, {
    'mainloop:heartbeatAge': [heartbeat.observation],
    'server:lifecycle': [
      { componentType: 'system', observedValue: phase, observedUnit: 'phase', status: phaseStatus, time },
    ],
    'server:readiness': [
      {
        componentType: 'system',
        ...(beat?.status
          ? { observedValue: beat.status, observedUnit: 'status' }
          : { output: 'Not decided yet' }),
        status: decided,
        time,
      },
    ],
    'eventloop:delay': [
      {
        componentType: 'system',
        observedValue: delayMs,
        observedUnit: 'ms',
        status: delayStatus,
        time,
      },
    ],
  });
}
