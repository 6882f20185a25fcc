// Process-wide state. Next bundles its own copy of every module into each of its bundles, and the
// compiled server loads yet another, so a module-level variable exists once per copy. A slot on
// globalThis under a Symbol.for key exists once per process.
// This is the only file that reads or writes globalThis for that; the interface below is the one
// list of slots.
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import type { Settings } from '../config/settings';
import type { HealthStatus, ProcessSampler } from '../health/types';
import type { LifecycleState } from '../lifecycle/state';
import type { ServerErrorReporter } from '../reporting/node/hook';

export interface ProcessSlots {
  /** lib/config/settings.ts: the settings the server read and checked at start. */
  settings: Settings;
  /** lib/lifecycle/state.ts: starting → ready → draining → closed. */
  lifecycle: LifecycleState;
  /** lib/health/process-checks.ts: the background sampler of event-loop delay and heap. */
  processSampler: ProcessSampler;
  /** lib/health/report.ts: the last status of the checks, to log transitions only. */
  healthLastStatus: HealthStatus;
  /** lib/reporting/node/hook.ts: the server-side reporter instrumentation.ts installed. */
  serverReporter: ServerErrorReporter;
  /** lib/reporting/node/answered-status.ts: each request's response, by its headers object. */
  responsesByHeaders: WeakMap<IncomingHttpHeaders, ServerResponse>;
}

type SlotName = keyof ProcessSlots;

// One symbol per slot, built from the slot's name, so the keys cannot drift from the list above.
const symbolFor = (name: SlotName) => Symbol.for(`app-shell.${name}`);

// The one cast: globalThis has no index signature for symbols.
const holder = globalThis as unknown as Partial<Record<symbol, unknown>>;

export function readSlot<K extends SlotName>(name: K): ProcessSlots[K] | undefined {
  return holder[symbolFor(name)] as ProcessSlots[K] | undefined;
}

export function writeSlot<K extends SlotName>(name: K, value: ProcessSlots[K]): void {
  holder[symbolFor(name)] = value;
}

/** The slot's value, made by `create` the first time any copy of any module asks. */
export function slotOrCreate<K extends SlotName>(name: K, create: () => ProcessSlots[K]): ProcessSlots[K] {
  const key = symbolFor(name);
  const existing = holder[key] as ProcessSlots[K] | undefined;
  if (existing !== undefined) return existing;
  const value = create();
  holder[key] = value;
  return value;
}

/** Empties a slot: for tests, which start each case afresh. */
export function clearSlot(name: SlotName): void {
  delete holder[symbolFor(name)];
}
