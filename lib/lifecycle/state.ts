// The one owner of the server's lifecycle: starting → ready → draining → closed. The production
// server moves it; health reads it. Kept in a process slot, because the server and Next's bundles
// each load their own copy of this module.
import { log } from '../log/logger';
import { processSlot } from '../process/slots';

export type Phase = 'starting' | 'ready' | 'draining' | 'closed';

export interface LifecycleState {
  phase: Phase;
  /** When the phase began (ms since the epoch). */
  since: number;
  startedAt: number;
  /** Work to finish before the process exits, by name. */
  beforeExit: Map<string, () => Promise<unknown>>;
}

/** starting → ready → draining → closed. */
const lifecycleSlot = processSlot<LifecycleState>('lifecycle');

export function lifecycleState(): LifecycleState {
  return lifecycleSlot.getOrCreate(() => {
    const now = Date.now();
    return {
      phase: 'starting',
      since: now,
      startedAt: Math.round(now - process.uptime() * 1000),
      beforeExit: new Map(),
    };
  });
}

export function currentPhase(): Phase {
  return lifecycleState().phase;
}

const NEXT_PHASES: Record<Phase, Phase[]> = {
  starting: ['ready', 'draining', 'closed'],
  ready: ['draining', 'closed'],
  draining: ['closed'],
  closed: [],
};

/**
 * Moves to `phase` if that is a step forward, and logs the transition as one JSON line.
 * @returns whether the phase changed
 */
export function enterPhase(phase: Phase, fields: Record<string, unknown> = {}): boolean {
  const state = lifecycleState();
  if (!NEXT_PHASES[state.phase].includes(phase)) return false;
  const previous = state.phase;
  const now = Date.now();
  state.phase = phase;
  state.since = now;
  log(phase === 'draining' ? 'warn' : 'info', `lifecycle.${phase}`, {
    from: previous,
    uptimeMs: now - state.startedAt,
    ...fields,
  });
  return true;
}

/**
 * Registers work that must finish before the process exits (flushing error reports, say).
 * Registering again under the same name replaces the earlier one.
 */
export function beforeExit(name: string, task: () => Promise<unknown>): void {
  lifecycleState().beforeExit.set(name, task);
}

/** Forgets the lifecycle: for tests, which start each case afresh. */
export function resetLifecycle(): void {
  lifecycleSlot.clear();
}
