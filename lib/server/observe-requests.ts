// Every request, once answered: one timing that feeds both the request-duration histogram and the
// request's log line. Hand-written rather than pino-http: one clock for both, the route as Next's
// pattern rather than the path, the query scrubbed by the reporting scrubber, and no headers (a
// cookie or an Authorization header must never reach a log).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { logEnabled, logRequest } from '../log/logger';
import { methodLabel, ROUTES, routeOf } from '../metrics/http-route';
import type { Metrics } from '../metrics/registry';
import { referenceFor } from '../reporting/node/request-reference';
import { scrubUrl } from '../reporting/scrub/text';

/** A logged path longer than this is cut (see cutUrl): the line stays small whatever a stranger sends. */
export const MAX_LOGGED_PATH = 2048;

/** What a request that got no answer at all counts as (nginx's "client closed request"). */
export const NO_ANSWER = 499;

export interface RequestObserverOptions {
  /** The histogram, or null with metrics off (or not yet made). */
  duration: () => Metrics['requestDuration'] | null;
  /** The files of public/, served under their own path: each is a route of its own. */
  publicFiles: ReadonlySet<string>;
  /** Routes whose 200 answers are not logged: the health probes, asked every few seconds. */
  quietRoutes: ReadonlySet<string>;
}

export interface RequestObserver {
  requestStarted: (req: IncomingMessage, res: ServerResponse) => void;
  /** Names the route of a request the server answers itself, before Next routes it. */
  answeredAs: (res: ServerResponse, route: string) => void;
}

const ROUTE = Symbol('route');
type Labelled = ServerResponse & { [ROUTE]?: string };

/** Scrubbed URLs kept for the next request to the same URL: most traffic repeats a few paths. */
const SCRUBBED_KEPT = 512;

/** How much of `text` fits in `max` characters without cutting between two `separator`s. */
function wholeParts(text: string, separator: string, max: number): string {
  let end = 0;
  // Stryker disable next-line EqualityOperator: only called with a text longer than `max`, which ends the loop first.
  while (end < text.length) {
    const next = text.indexOf(separator, end + 1);
    const stop = next === -1 ? text.length : next;
    if (stop > max) break;
    end = stop;
  }
  return text.slice(0, end);
}

/**
 * The URL cut to about MAX_LOGGED_PATH characters between path segments or between parameters,
 * never inside one: the scrubber then reads a bounded text (a 16 KiB query cost milliseconds of
 * it per request), and a cut can never leave the beginning of a secret it would not recognise.
 */
export function cutUrl(url: string): string {
  if (url.length <= MAX_LOGGED_PATH) return url;
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  if (path.length > MAX_LOGGED_PATH) return `${wholeParts(path, '/', MAX_LOGGED_PATH)}/…`;
  const query = url.slice(queryAt + 1);
  // (Never the whole query: the URL is over the limit and the path is not.)
  const kept = wholeParts(query, '&', MAX_LOGGED_PATH - path.length - 1);
  return kept ? `${path}?${kept}&…` : `${path}?…`;
}

/** `/a?token=…` cut (see cutUrl), then with its secrets scrubbed. */
export function loggedPath(url: string, kept: Map<string, string> = new Map()): string {
  const known = kept.get(url);
  if (known !== undefined) return known;
  const logged = scrubUrl(cutUrl(url));
  // Bounded: a stranger's endless distinct URLs only ever empty it.
  if (kept.size >= SCRUBBED_KEPT) kept.clear();
  if (url.length <= MAX_LOGGED_PATH) kept.set(url, logged);
  return logged;
}

export function createRequestObserver({
  duration,
  publicFiles,
  quietRoutes,
}: RequestObserverOptions): RequestObserver {
  const scrubbed = new Map<string, string>();
  function finished(req: IncomingMessage, res: Labelled, started: number, url: string): void {
    try {
      const elapsedMs = performance.now() - started;
      const status = res.headersSent ? res.statusCode : NO_ANSWER;
      const queryAt = url.indexOf('?');
      const route =
        res[ROUTE] ?? routeOf(req, res, status, queryAt === -1 ? url : url.slice(0, queryAt), publicFiles);
      duration()?.observe(
        {
          http_request_method: methodLabel(req.method),
          http_route: route,
          http_response_status_code: String(status),
        },
        elapsedMs / 1000,
      );
      if (status === 200 && quietRoutes.has(route)) return;
      // SECURITY: a beacon is a count a stranger can send at will; its module says what it ignored
      // in one line a minute (lib/http/beacon.ts), so no line per beacon.
      if (route === ROUTES.beacon) return;
      const level = status >= 500 ? 'error' : 'info';
      // Cost only, so no test can tell: pino drops the line below its level anyway; this skips the
      // scrub and the microtask for every request under LOG_LEVEL=warn.
      // Stryker disable next-line ConditionalExpression: saves work, changes no output
      if (!logEnabled(level)) return;
      // After the other 'close' listeners: an API route's error is reported on its own 'close'.
      queueMicrotask(() => {
        try {
          const reference = referenceFor(req.headers);
          logRequest(level, {
            method: req.method as string, // (a server's request always has one)
            path: loggedPath(url, scrubbed),
            route,
            status,
            durationMs: Math.round(elapsedMs * 10) / 10,
            aborted: res.writableFinished ? undefined : true,
            reference: reference || undefined,
          });
        } catch {
          // As below.
        }
      });
    } catch {
      // Observing a request must never become its failure.
    }
  }

  return {
    requestStarted: (req, res) => {
      const started = performance.now();
      // The URL as it came: later stages rewrite req.url.
      const url = req.url as string; // (a server's request always has one)
      res.once('close', () => finished(req, res, started, url));
    },
    answeredAs: (res, route) => {
      (res as Labelled)[ROUTE] = route;
    },
  };
}
