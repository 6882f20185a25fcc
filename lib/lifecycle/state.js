// The one owner of the server's lifecycle: starting → ready → draining → closed. The production
// server moves it; health reads it. Plain CommonJS so the server (run by Node directly) and the
// health route (bundled by Next) can both load it.
const { log } = require('../log/json-line.js');

/** @typedef {'starting' | 'ready' | 'draining' | 'closed'} Phase */

/**
 * @typedef {object} LifecycleState
 * @property {Phase} phase
 * @property {number} since  When the phase began (ms since the epoch).
 * @property {number} startedAt
 * @property {Map<string, () => Promise<unknown>>} beforeExit  Work to finish before the process exits.
 */

// The server and Next's bundles each get their own copy of this module; one global slot makes them
// share a single state.
const KEY = Symbol.for('app-shell.lifecycle');

/** @returns {LifecycleState} */
function lifecycleState() {
  const holder = /** @type {Record<symbol, LifecycleState | undefined>} */ (
    /** @type {unknown} */ (globalThis)
  );
  let state = holder[KEY];
  if (!state) {
    const now = Date.now();
    const startedAt = Math.round(now - process.uptime() * 1000);
    state = { phase: 'starting', since: now, startedAt, beforeExit: new Map() };
    holder[KEY] = state;
  }
  return state;
}

/** @returns {Phase} */
function currentPhase() {
  return lifecycleState().phase;
}

/** @type {Record<Phase, Phase[]>} */
const NEXT_PHASES = {
  starting: ['ready', 'draining', 'closed'],
  ready: ['draining', 'closed'],
  draining: ['closed'],
  closed: [],
};

/**
 * Moves to `phase` if that is a step forward, and logs the transition as one JSON line.
 * @param {Phase} phase
 * @param {Record<string, unknown>} [fields]
 * @returns {boolean} whether the phase changed
 */
function enterPhase(phase, fields = {}) {
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
 * @param {string} name
 * @param {() => Promise<unknown>} task
 */
function beforeExit(name, task) {
  lifecycleState().beforeExit.set(name, task);
}

module.exports = { lifecycleState, currentPhase, enterPhase, beforeExit };
