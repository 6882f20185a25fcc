// How code that must not import the server SDK (the _error page, bundled for browsers too; the
// compiled server entry) reaches the server reporter: one process slot, set by instrumentation.
// Outside node/ on purpose: pages may import this file and nothing below lib/reporting/node/
// (docs/module-boundaries.md; __tests__/unit/architecture/bundle-boundaries.test.ts checks).
import { processSlot } from '../process/slots';

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

/** The server-side reporter instrumentation.ts installed. */
export const serverReporterSlot = processSlot<ServerErrorReporter>('serverReporter');

export function installServerReporter(reporter: ServerErrorReporter): void {
  serverReporterSlot.write(reporter);
}

/** Reports through the installed reporter; undefined when there is none or it failed. Never throws. */
export function reportThroughServerHook(error: unknown, context: ServerErrorContext): string | undefined {
  try {
    return serverReporterSlot.read()?.(error, context);
  } catch {
    // A reporter that threw: no reference (undefined, as the function's end returns).
  }
}
