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
    tracesSampleRate: build.tracesSampleRate(),
  });
}

export const onRequestError: Instrumentation.onRequestError = async (error, request, context) => {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const [{ reportServerError }, { whenAnswered }, { noteReference }] = await Promise.all([
    import('./lib/reporting/node/reporter'),
    import('./lib/reporting/node/answered-status'),
    import('./lib/reporting/node/request-reference'),
  ]);
  const report = (status: number) =>
    // The reference goes into the request's log line too (lib/server/observe-requests.ts).
    noteReference(
      request.headers,
      reportServerError(error, {
        route: context.routePath,
        method: request.method,
        status,
        path: request.path,
        mechanism: `onRequestError:${context.routeType}`,
      }),
    );
  // A page that throws is answered 500, and _error shows this report's id: report it now. An API
  // route's error is reported by the status it was answered with (answered-status.ts): a client
  // error Next throws itself (400 "Invalid JSON") is not this app's failure. Without the app's
  // server there is no answer to wait for, and it counts as a 500.
  if (context.routeType !== 'route' || !whenAnswered(request.headers, report)) report(500);
};
