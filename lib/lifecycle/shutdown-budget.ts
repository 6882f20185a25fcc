// The time a stop may take, step by step, in the order ./graceful-shutdown.ts takes them: one list,
// so the Deployment's grace period (deploy/kubernetes/deployment.yaml) is checked against its sum
// (__tests__/unit/deploy/kubernetes.test.ts) and the draining line says it (docs/operations.md).
import type { Settings } from '../config/settings';

/** How long flushing error reports and the other before-exit tasks may take. */
export const FLUSH_TIMEOUT_MS = 2000;

/** How often the wait for requests in flight looks again: what it can run past SHUTDOWN_TIMEOUT_MS. */
export const IN_FLIGHT_POLL_MS = 20;

export type BudgetSettings = Pick<Settings, 'drainMs' | 'shutdownTimeoutMs' | 'reportHandoffTimeoutMs'>;

export interface ShutdownStep {
  step: 'drain' | 'in-flight' | 'flush' | 'hand-off';
  /** The most it takes, in ms. */
  ms: number;
  /** The setting that sets it, or null for a fixed bound. */
  setting: string | null;
}

/** Every step of a stop with its bound, in order. */
export function shutdownSteps(settings: BudgetSettings): readonly ShutdownStep[] {
  return [
    { step: 'drain', ms: settings.drainMs, setting: 'SHUTDOWN_DRAIN_MS' },
    {
      step: 'in-flight',
      ms: settings.shutdownTimeoutMs + IN_FLIGHT_POLL_MS,
      setting: 'SHUTDOWN_TIMEOUT_MS',
    },
    { step: 'flush', ms: FLUSH_TIMEOUT_MS, setting: null },
    { step: 'hand-off', ms: settings.reportHandoffTimeoutMs, setting: 'REPORT_HANDOFF_TIMEOUT_MS' },
  ];
}

/** The most a stop takes from the signal to the exit, in ms: what a grace period must hold. */
export function shutdownBudgetMs(settings: BudgetSettings): number {
  return shutdownSteps(settings).reduce((sum, { ms }) => sum + ms, 0);
}
