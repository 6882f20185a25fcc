// How code that must not import the server SDK (the _error page, bundled for browsers too; the
// plain-Node server entry) reaches the server reporter: one global slot, set by instrumentation.

export interface ServerErrorContext {
  /** The route file, e.g. `/api/orders` or `/orders/[id]`. */
  route: string;
  method: string;
  status: number;
  /** The request path, scrubbed before it is sent. */
  path?: string;
  mechanism?: string;
}

export type ServerErrorReporter = (error: unknown, context: ServerErrorContext) => string | undefined;

const KEY = Symbol.for('app-shell.report-server-error');

export function installServerReporter(reporter: ServerErrorReporter): void {
  (globalThis as unknown as Record<symbol, ServerErrorReporter>)[KEY] = reporter;
}

/** Reports through the installed reporter; never throws. */
export function reportThroughServerHook(error: unknown, context: ServerErrorContext): string | undefined {
  try {
    const reporter = (globalThis as unknown as Record<symbol, ServerErrorReporter | undefined>)[KEY];
    return reporter?.(error, context);
  } catch {
    return undefined;
  }
}
