// Next's instrumentation hook: starts server-side error reporting and hands it every request error.
// The logic lives in lib/reporting/node/reporter.ts.
import type { Instrumentation } from 'next';

export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const [{ initServerReporting }, { settings }, build] = await Promise.all([
    import('./lib/reporting/node/reporter'),
    import('./lib/config/settings'),
    import('./lib/config/build-values'),
  ]);
  await initServerReporting({
    // Checked by the server at start (SENTRY_DSN, else the build's).
    dsn: settings().sentryDsn,
    release: build.release(),
    environment: build.sentryEnvironment(),
  });
}

export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { reportServerError } = await import('./lib/reporting/node/reporter');
  const declared = (error as { statusCode?: unknown } | null)?.statusCode;
  reportServerError(error, {
    route: context.routePath,
    method: request.method,
    status: typeof declared === 'number' ? declared : 500,
    path: request.path,
    mechanism: `onRequestError:${context.routeType}`,
  });
};
