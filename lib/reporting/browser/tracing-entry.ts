// Entry point of the reporting file a sampled visitor loads instead of ./sdk-entry.ts (a webpack
// entry of its own, next.config.ts): the same SDK with tracing. The visitor was sampled before
// anything loaded (./reporter.ts), so everything it traces is kept (rate 1): the page load, which
// continues the server's trace named by the document's sentry-trace and baggage meta tags, and
// each navigation, with Web Vitals (LCP, FCP, CLS, TTFB on the page load; INP after an
// interaction). Same-origin requests carry the trace on to the server's API routes.
// Stryker disable all: a bundle's entry, run as a page loads it (the e2e tests load it in Chromium);
// what it starts is startSdk, tested in jsdom.
import { browserTracingIntegration, withStaticSpan } from '@sentry/react';
import { scrubSpan, scrubTransaction } from '../scrub';
import { routeName, scrubOptions, startSdk } from './sdk';
import type { SdkLoadedEvent } from './types';

const loadedEvent: SdkLoadedEvent = 'app-shell:sdk-loaded';
const start = () => {
  const scrubbing = scrubOptions();
  return startSdk({
    tracesSampleRate: 1,
    beforeSendTransaction: (event) => scrubTransaction(event, scrubbing),
    // Every span, and the only hook a span sent on its own (INP) passes; the tunnel scrubs those again.
    beforeSendSpan: withStaticSpan((span) => scrubSpan(span, scrubbing)),
    integrations: [
      browserTracingIntegration({
        // Named by route pattern, never by the concrete URL (which may hold ids and secrets).
        beforeStartSpan: (options) => ({ ...options, name: routeName() }),
      }),
    ],
  });
};
document.dispatchEvent(new CustomEvent(loadedEvent, { detail: start }));
