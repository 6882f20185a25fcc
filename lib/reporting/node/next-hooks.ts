// What Next's instrumentation hook (instrumentation.ts at the root) does on the Node.js runtime:
// starts server-side error reporting, and reports every request error Next hands it.
import type { Instrumentation } from 'next';
import { release, sentryEnvironment, tracesSampleRate } from '../../config/build-values';
import { settings } from '../../config/settings';
import { whenAnswered } from './answered-status';
import { initServerReporting, reportServerError } from './reporter';
import { noteReference } from './request-reference';

// Stryker disable next-line BlockStatement: Next calls this from instrumentation.ts, in the built
// server the e2e tests run; it only hands the settings to initServerReporting, tested on its own.
export async function registerServerReporting(): Promise<void> {
  await initServerReporting({
    // Checked by the server at start (SENTRY_DSN, else the build's; none under `npm run dev`
    // unless SENTRY_IN_DEVELOPMENT=1).
    dsn: settings().sentryDsn,
    release: release(),
    environment: sentryEnvironment(),
    tracesSampleRate: tracesSampleRate(),
  });
}

export const reportRequestError: Instrumentation.onRequestError = (error, request, context) => {
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
