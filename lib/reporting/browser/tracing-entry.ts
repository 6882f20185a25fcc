// Entry point of the reporting file a sampled visitor loads instead of ./sdk-entry.ts (a webpack
// entry of its own, next.config.ts): the same SDK with tracing. The visitor was sampled before
// anything loaded (./reporter.ts), so everything it traces is kept (rate 1): the page load, which
// continues the server's trace named by the document's sentry-trace and baggage meta tags, and
// each navigation, with Web Vitals (LCP, FCP, CLS, TTFB on the page load; INP after an
// interaction). Same-origin requests carry the trace on to the server's API routes.
import { browserTracingIntegration } from '@sentry/react';
import { routeName, startSdk } from './sdk';
import type { SdkLoadedEvent } from './types';

const loadedEvent: SdkLoadedEvent = 'app-shell:sdk-loaded';
const start = () =>
  startSdk({
    tracesSampleRate: 1,
    integrations: [
      browserTracingIntegration({
        // Named by route pattern, never by the concrete URL (which may hold ids and secrets).
        beforeStartSpan: (options) => ({ ...options, name: routeName() }),
      }),
    ],
  });
document.dispatchEvent(new CustomEvent(loadedEvent, { detail: start }));
