// The browser SDK, loaded lazily once the page is idle (see ./reporter.ts). Built from
// @sentry/react's parts rather than its `init`, so only the integrations listed here are bundled:
// errors and release health (a session per page view and navigation); no replay, no console
// breadcrumbs, and no global handlers: the first-load reporter's own listeners hand it the page's
// uncaught errors and rejections (./reporter.ts). Tracing is added by the file sampled visitors load instead (./tracing-entry.ts).
import {
  BrowserClient,
  breadcrumbsIntegration,
  browserSessionIntegration,
  dedupeIntegration,
  defaultStackParser,
  eventFiltersIntegration,
  linkedErrorsIntegration,
  Scope,
  setCurrentClient,
  type BrowserOptions,
} from '@sentry/react';
import type { Integration } from '@sentry/core';
import { buildDsn, release, sentryEnvironment, tunnelPath } from '../../config/build-values';
import { DATA_COLLECTION } from '../data-collection';
import { shortReference } from '../reference';
import { isDynamicRoute } from 'next/dist/shared/lib/router/utils/is-dynamic';
import { getRouteMatcher } from 'next/dist/shared/lib/router/utils/route-matcher';
import { getRouteRegex } from 'next/dist/shared/lib/router/utils/route-regex';
import { scrubBreadcrumbOrDrop, scrubEvent } from '../scrub';
import { tunnelTransport } from './transport';
import type { LoadedSdk, Mechanism } from './types';

/** What Next puts on window: its router, and the build's routes, most specific first. */
const nextGlobals = () =>
  window as unknown as {
    next?: { router?: { pathname?: string } };
    __BUILD_MANIFEST?: { sortedPages?: string[] };
  };

/**
 * The app's route a path belongs to, matched the way Next's client router matches it, so reports
 * name `/reset/[token]` instead of the token.
 */
// Each dynamic route's matcher, compiled once: routeOf runs for every event and breadcrumb URL.
const matchers = new Map<string, ReturnType<typeof getRouteMatcher>>();
const matcherFor = (page: string) => {
  let matcher = matchers.get(page);
  // Stryker disable next-line ConditionalExpression: a cache; a matcher made again matches the same.
  if (!matcher) {
    matcher = getRouteMatcher(getRouteRegex(page));
    matchers.set(page, matcher);
  }
  return matcher;
};

const routeOf = (pathname: string): string | undefined => {
  try {
    // Stryker disable next-line ArrayDeclaration: with no manifest, any list with no route in it answers the same.
    const pages = nextGlobals().__BUILD_MANIFEST?.sortedPages ?? [];
    if (pages.includes(pathname)) return pathname;
    return pages.find((page) => isDynamicRoute(page) && matcherFor(page)(pathname) !== false);
  } catch {
    // Reporting must never be a new failure: no route (undefined, as the function's end returns).
  }
};

/** The route pattern Next is showing (`/orders/[id]`), never the URL's concrete segments. */
function currentRoute(): string {
  const { pathname } = window.location;
  return nextGlobals().next?.router?.pathname ?? routeOf(pathname) ?? pathname;
}

/**
 * The route a page load or navigation is named by: the pattern of the path now in the address bar
 * (`/orders/[id]`), else what Next is showing; a path no route matches renders the 404 page.
 */
export function routeName(): string {
  return routeOf(window.location.pathname) ?? nextGlobals().next?.router?.pathname ?? '/404';
}

/** How reports are scrubbed in this page: routes matched as Next's router matches them. */
export const scrubOptions = () => ({ routeOf, origin: window.location.origin });

/**
 * What the tracing file adds to the client (./tracing-entry.ts); nothing for errors and sessions
 * alone. Its scrub hooks too: a client that does not trace sends no transaction and no span, so
 * the file every visitor loads does not carry their code.
 */
export interface SdkExtras {
  integrations?: Integration[];
  /** Set by the tracing file only: the visitor was sampled before it loaded (./reporter.ts). */
  tracesSampleRate?: number;
  beforeSendTransaction?: BrowserOptions['beforeSendTransaction'];
  beforeSendSpan?: BrowserOptions['beforeSendSpan'];
}

export function startSdk({ integrations = [], tracesSampleRate, ...hooks }: SdkExtras = {}): LoadedSdk {
  const scrubbing = scrubOptions();
  const client = new BrowserClient({
    dsn: buildDsn() ?? undefined,
    release: release(),
    environment: sentryEnvironment(),
    // Same origin, chosen at build time: ad-blockers do not drop it and CSP keeps connect-src 'self'.
    tunnel: tunnelPath() ?? undefined,
    // What the tunnel could not take waits in the browser (./transport.ts).
    transport: tunnelTransport,
    stackParser: defaultStackParser,
    integrations: [
      eventFiltersIntegration(),
      // (Console breadcrumbs are a separate integration in v11, left out: logs can hold anything.)
      // (fetch: jsdom has none, so only the e2e tests see its breadcrumbs.)
      // Stryker disable next-line BooleanLiteral: see above.
      breadcrumbsIntegration({ dom: true, fetch: true, history: true, xhr: true, sentry: false }),
      linkedErrorsIntegration(),
      dedupeIntegration(),
      // Release health: a session per page view and per client-side navigation, sent when the page
      // is idle; an error marks it (handled: errored; unhandled: crashed).
      browserSessionIntegration({ lifecycle: 'route' }),
      ...integrations,
    ],
    // Stryker disable next-line ConditionalExpression: a rate set to undefined is no rate, as one left out.
    ...(tracesSampleRate === undefined ? {} : { tracesSampleRate }),
    // Whole transactions, which beforeSendTransaction scrubs, with Web Vitals as the page load's
    // measurements; not v11's default of streamed spans (docs/performance.md).
    traceLifecycle: 'static',
    dataCollection: DATA_COLLECTION,
    // Known noise: browser extensions' own errors and ResizeObserver's benign loop notices.
    ignoreErrors: [/ResizeObserver loop (limit exceeded|completed with undelivered notifications)/],
    denyUrls: [/^(chrome|moz|safari|safari-web|ms-browser)-extension:\/\//, /^webkit-masked-url:/],
    sendClientReports: false,
    beforeSend: (event) => scrubEvent(event, scrubbing),
    beforeBreadcrumb: (crumb) => scrubBreadcrumbOrDrop(crumb, scrubbing),
    ...hooks,
  });
  setCurrentClient(client);
  client.init();
  // The page and the browser, as httpContextIntegration would add them but for its Referer, which
  // the scrubber drops (a few hundred bytes of the file every visitor loads: bench/page-weight-budget.json).
  client.addEventProcessor((event) => ({
    ...event,
    request: {
      url: window.location.href,
      ...event.request,
      headers: { 'User-Agent': navigator.userAgent, ...event.request?.headers },
    },
    tags: { route: currentRoute(), ...event.tags },
  }));

  return {
    capture(error, id, mechanism: Mechanism) {
      try {
        const scope = new Scope();
        scope.setTags({ mechanism, reference: shortReference(id), route: currentRoute() });
        const handled = mechanism === 'react-error-boundary';
        client.captureException(error, { event_id: id, mechanism: { type: mechanism, handled } }, scope);
      } catch {
        // Reporting must never be a new failure.
      }
    },
  };
}
