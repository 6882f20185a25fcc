// Every request, once answered: one timing that feeds both the request-duration histogram and the
// request's log line. Hand-written rather than pino-http: one clock for both, the route as Next's
// pattern rather than the path, the query scrubbed by the reporting scrubber, and no headers (a
// cookie or an Authorization header must never reach a log).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import { logEnabled, logRequest } from '../log/logger';
import { methodLabel, ROUTES, routeOf } from '../metrics/http-route';
import { type KeptObserve, keptObserve } from '../metrics/kept-labels';
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
type DurationLabel = 'http_request_method' | 'http_route' | 'http_response_status_code';

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

/** What a request's answer carries from its start to its end: set once, read once, no closure. */
const STARTED = Symbol('started');
const URL_AS_CAME = Symbol('url');
type Observed = Labelled & { [STARTED]?: number; [URL_AS_CAME]?: string };

/** One request's line, waiting for the microtask that writes every line of its turn. */
interface Waiting {
  req: IncomingMessage;
  res: ServerResponse;
  level: 'info' | 'error';
  route: string;
  status: number;
  elapsedMs: number;
  url: string;
}

export function createRequestObserver({
  duration,
  publicFiles,
  quietRoutes,
}: RequestObserverOptions): RequestObserver {
  const scrubbed = new Map<string, string>();
  let keptFor: Metrics['requestDuration'] | null = null;
  let observeKept: KeptObserve<DurationLabel> | null = null;
  /** The histogram's observation, its label sets kept (../metrics/kept-labels.ts), for whichever histogram is current. */
  function observe(method: string, route: string, status: number, seconds: number): void {
    const histogram = duration();
    if (histogram === null) return;
    if (histogram !== keptFor) {
      keptFor = histogram;
      observeKept = keptObserve(histogram);
    }
    (observeKept as KeptObserve<DurationLabel>).observe(
      `${method} ${status} ${route}`,
      () => ({
        http_request_method: method,
        http_route: route,
        http_response_status_code: String(status),
      }),
      seconds,
    );
  }

  // Lines wait here for one microtask, after the other 'close' listeners of their turn: an API
  // route's error is reported on its own 'close', and its reference goes in the line. One microtask
  // for all of them, not one each (Node's queueMicrotask makes an AsyncResource per call).
  let waiting: Waiting[] = [];
  function writeWaiting(): void {
    const lines = waiting;
    waiting = [];
    for (const { req, res, level, route, status, elapsedMs, url } of lines) {
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
        // As below; the other lines are still written.
      }
    }
  }

  function finished(req: IncomingMessage, res: Observed, started: number): void {
    try {
      const elapsedMs = performance.now() - started;
      const url = res[URL_AS_CAME] as string;
      const status = res.headersSent ? res.statusCode : NO_ANSWER;
      const queryAt = url.indexOf('?');
      const route =
        res[ROUTE] ?? routeOf(req, res, status, queryAt === -1 ? url : url.slice(0, queryAt), publicFiles);
      observe(methodLabel(req.method), route, status, elapsedMs / 1000);
      if (status === 200 && quietRoutes.has(route)) return;
      // SECURITY: a beacon is a count a stranger can send at will; its module says what it ignored
      // in one line a minute (lib/http/beacon.ts), so no line per beacon.
      if (route === ROUTES.beacon) return;
      const level = status >= 500 ? 'error' : 'info';
      // Cost only, so no test can tell: pino drops the line below its level anyway; this skips the
      // scrub and the microtask for every request under LOG_LEVEL=warn.
      // Stryker disable next-line ConditionalExpression: saves work, changes no output
      if (!logEnabled(level)) return;
      if (waiting.push({ req, res, level, route, status, elapsedMs, url }) === 1)
        queueMicrotask(writeWaiting);
    } catch {
      // Observing a request must never become its failure.
    }
  }
  // One listener for every answer: `this` is the answer, and `res.req` its request. Once only, as
  // `once` was: should anything emit 'close' again, the request is not counted twice.
  function onClose(this: Observed): void {
    const started = this[STARTED];
    if (started === undefined) return;
    this[STARTED] = undefined;
    finished(this.req, this, started);
  }

  return {
    requestStarted: (req, res) => {
      const observed = res as Observed;
      observed[STARTED] = performance.now();
      // The URL as it came: later stages rewrite req.url.
      observed[URL_AS_CAME] = req.url as string; // (a server's request always has one)
      // `on`, not `once`: 'close' comes once, and once's wrapper is one more closure per request.
      res.on('close', onClose);
    },
    answeredAs: (res, route) => {
      (res as Labelled)[ROUTE] = route;
    },
  };
}
