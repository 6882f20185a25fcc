// Server-side error reports: one per error object, with a reference id _error can show. Through
// Sentry (./sentry-client.ts, loaded only when there is a DSN) or else as one JSON line on stderr.
// Initialised by instrumentation.ts; reached by everything else through ../server-hook.ts.
import { noteLogged } from '../../log/logged-errors';
import { errorFields, log } from '../../log/logger';
import { recordReport } from '../../metrics/record';
import { markReported, newEventId, referenceOf } from '../reference';
import { asRoute, scrubFields, scrubUrl } from '../scrub';
import { installServerReporter, type ServerErrorContext } from '../server-hook';
import type { SentrySender } from './sentry-client';
import { sourceMappedStack } from './source-mapped-stack';

export interface ServerReportingConfig {
  dsn: string | null;
  release: string;
  environment: string;
  /** The share of requests traced; 0 or absent: none. */
  tracesSampleRate?: number;
}

let sentry: SentrySender | null = null;

/**
 * Reports one server error and returns its reference id, or undefined when it is not reported
 * (status below 500). The same error object is only ever reported once. Never throws.
 */
export function reportServerError(error: unknown, context: ServerErrorContext): string | undefined {
  try {
    if (context.status < 500) return undefined;
    const existing = referenceOf(error);
    if (existing) return existing;
    const id = newEventId();
    markReported(error, id);
    // The route the request matched (`/reset/[token]`), never its concrete dynamic segments.
    const path = context.path ? scrubUrl(asRoute(context.path, () => context.route)) : undefined;
    if (sentry) {
      sentry(error, id, context, path);
      return id;
    }
    const { type, message, stack, code, cause } = errorFields(error);
    log(
      'error',
      'server.error',
      scrubFields({
        reference: id,
        route: context.route,
        method: context.method,
        status: context.status,
        ...(path ? { path } : {}),
        type,
        message,
        // Stryker disable next-line ConditionalExpression: pino leaves a field of undefined out of the line, as one not given.
        ...(code !== undefined ? { code } : {}),
        // Where it failed in the sources, and why (a `fetch failed` says why only in its cause):
        // the one line an operator reads, so Next's own print of the error is left out
        // (lib/log/console.ts).
        ...(stack ? { stack: sourceMappedStack(stack) } : {}),
        ...(cause ? { cause } : {}),
      }),
    );
    // Next's own prints of it then add no line (lib/log/console.ts).
    noteLogged(error);
    recordReport('logged');
    return id;
  } catch {
    // Reporting must never be a new failure: no reference (undefined, as the function's end returns).
  }
}

export async function initServerReporting(config: ServerReportingConfig): Promise<void> {
  installServerReporter(reportServerError);
  if (sentry || !config.dsn) return;
  const { createSentrySender } = await import('./sentry-client');
  sentry = createSentrySender({
    dsn: config.dsn,
    release: config.release,
    environment: config.environment,
    tracesSampleRate: config.tracesSampleRate,
  });
}
