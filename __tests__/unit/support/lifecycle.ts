// Lifecycle state is one per process (a global slot); unit tests start each case afresh.
export function resetLifecycle() {
  delete (globalThis as unknown as Record<symbol, unknown>)[Symbol.for('app-shell.lifecycle')];
  delete (globalThis as unknown as Record<symbol, unknown>)[Symbol.for('app-shell.health.last-status')];
}
