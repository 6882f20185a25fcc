// Which error objects already have a log line of their own (the reporter's `server.error`), so
// that Next's prints of the same object add none (./console.ts). Marked on the object itself, under
// a Symbol.for key: the reporter runs in Next's bundles, the console capture in the compiled
// server, each with its own copy of this module.

// Stryker disable next-line StringLiteral: any key the copies share will do.
const LOGGED = Symbol.for('app-shell.loggedError');

/** Records that `error` has its own log line. Never throws (a frozen or primitive error stays unmarked). */
export function noteLogged(error: unknown): void {
  try {
    Object.defineProperty(error, LOGGED, { value: true, enumerable: false });
  } catch {
    // Next's print of it then stays: a second line beats a throw on the error path.
  }
}

/** Whether `error` has its own log line. */
export function wasLogged(error: unknown): boolean {
  return (
    error !== null &&
    (typeof error === 'object' || typeof error === 'function') &&
    (error as Record<symbol, unknown>)[LOGGED] === true
  );
}
