// Next's instrumentation hook: starts server-side error reporting and hands it every request error.
// The logic lives in lib/reporting/server.ts.
import type { Instrumentation } from 'next';

export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { initServerReporting } = await import('./lib/reporting/server');
  await initServerReporting({
    // The server reads SENTRY_DSN at start (lib/server/start.js checks it matches the build's).
    dsn: process.env.SENTRY_DSN?.trim() || process.env.APP_SENTRY_DSN || null,
    // Inlined at build time, so browser and server events carry the same values.
    release: process.env.APP_RELEASE ?? 'unknown',
    environment: process.env.APP_SENTRY_ENVIRONMENT ?? 'production',
  });
}

export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { reportServerError } = await import('./lib/reporting/server');
  const declared = (error as { statusCode?: unknown } | null)?.statusCode;
  reportServerError(error, {
    route: context.routePath,
    method: request.method,
    status: typeof declared === 'number' ? declared : 500,
    path: request.path,
    mechanism: `onRequestError:${context.routeType}`,
  });
};
