// The labels a request is counted and logged under: its route as Next's page pattern, never the
// raw path, and its method from a fixed set, so that any number of distinct URLs and any method a
// stranger makes up stay a handful of series (OpenTelemetry's http.route and http.request.method).
import type { IncomingMessage } from 'node:http';

/** OpenTelemetry's known methods; anything else is `_OTHER`. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);

export function methodLabel(method: string | undefined): string {
  return method !== undefined && METHODS.has(method) ? method : '_OTHER';
}

/** Routes the server answers before Next matches anything. */
export const ROUTES = {
  /** Refused before routing: a bad request target or Host, too many query parameters. */
  refused: '(refused)',
  /** Unknown paths, under /api or not: Next's own name for the page that answers them. */
  notFound: '/404',
  /** A redirect Next makes itself (a trailing slash). */
  redirect: '(redirect)',
  /** Next's build output under /_next/ (scripts, styles, images). */
  nextAsset: '/_next/[...asset]',
  /** What the shell answers itself for its pages (the service worker's script, its words). */
  shell: '(shell)',
  /** A page's beacon (lib/http/beacon.ts): a lost build file, a screen seen. */
  beacon: '(beacon)',
  /** A file of public/ that is not in the list the server read at start. */
  publicFile: '(public)',
} as const;

/** What Next leaves on a request it handled (an internal of Next's: e2e tests check it still holds). */
interface NextRequestMeta {
  match?: { definition?: { page?: unknown } };
  invokePath?: unknown;
}
const NEXT_REQUEST_META = Symbol.for('NextInternalRequestMeta');

/** Pages Next invokes for an error: bounded, and worth a route of their own. */
const ERROR_PAGES = new Set(['/404', '/500', '/_error']);

/** What followNextMatch keeps of a request: Next's two values it watches, and the page matched. */
interface Followed {
  match?: unknown;
  invokePath?: unknown;
  page?: string;
}
/** Where it is kept: on the request, and on the meta object given to Next (whose accessors read it). */
const FOLLOWED = Symbol('app-shell.followedMatch');
type WithFollowed = { [FOLLOWED]?: Followed };

/** A route match's page pattern, when it is one. */
function pageOf(match: unknown): string | undefined {
  const page = (match as NextRequestMeta['match'] | undefined)?.definition?.page;
  return typeof page === 'string' ? page : undefined;
}

/**
 * The meta object's `match` and `invokePath`: the same functions for every request (what a request
 * costs is one small object and one defineProperties), each reading the state the object carries.
 * Enumerable, so that Next's copies of the meta object (`{ ...meta }`, for an API route) carry their
 * values; configurable, so that Next's removeRequestMeta can delete them.
 */
const FOLLOWING: PropertyDescriptorMap = {
  match: {
    get(this: WithFollowed) {
      return (this[FOLLOWED] as Followed).match;
    },
    set(this: WithFollowed, value: unknown) {
      const followed = this[FOLLOWED] as Followed;
      followed.match = value;
      const page = pageOf(value);
      if (page !== undefined && !ERROR_PAGES.has(page)) followed.page = page;
    },
    enumerable: true,
    configurable: true,
  },
  invokePath: {
    get(this: WithFollowed) {
      return (this[FOLLOWED] as Followed).invokePath;
    },
    set(this: WithFollowed, value: unknown) {
      const followed = this[FOLLOWED] as Followed;
      followed.invokePath = value;
      followed.page = undefined;
    },
    enumerable: true,
    configurable: true,
  },
};

/**
 * Makes the request remember the page Next matches for it, before Next replaces the match: to
 * render its error page for a page that failed (a 500, `/_error`) or returned `notFound: true`
 * (a 404, `/404`), Next sets the request's match to the error page, and that page's pattern is
 * all it leaves. Next writes the match into the request's meta object (`addRequestMeta`), which
 * is given here before Next makes its own: its `match` is a setter that keeps the last page that
 * is not an error page. A pattern only ever comes from Next's route definitions, which are the
 * build's manifests, so the label set stays bounded. When Next's router routes the request again
 * (a new `invokePath`: a page whose `fallback: false` does not know the path falls through to the
 * 404 case), the page it left no longer answers, and is forgotten. Never throws.
 */
export function followNextMatch(req: IncomingMessage): void {
  try {
    const holder = req as unknown as Record<symbol, unknown>;
    if (holder[NEXT_REQUEST_META] !== undefined) return;
    const followed: Followed = {};
    holder[FOLLOWED] = followed;
    holder[NEXT_REQUEST_META] = Object.defineProperties({ [FOLLOWED]: followed }, FOLLOWING);
  } catch {
    // (A request object that refuses a property: its route is read from what Next leaves, as before.)
  }
}

/** The page Next matched for the request before any error page it rendered, if followed. */
export function matchedPage(req: IncomingMessage): string | undefined {
  return (req as unknown as WithFollowed)[FOLLOWED]?.page;
}

/**
 * The route of a request Next answered, from what Next recorded while it routed: the matched
 * page's pattern (`/orders/[id]`, `/api/health/ready`), that of a page that failed or was not
 * found (followNextMatch) rather than the error page Next then rendered, the error page it invoked for an unknown
 * path (`/404`), or else one of a few fixed names. A public file keeps its own path only when it is
 * one of `publicFiles`, so the label set stays bounded by what the build ships.
 */
export function nextRoute(
  req: IncomingMessage,
  status: number,
  pathname: string,
  publicFiles: ReadonlySet<string>,
): string {
  const matched = matchedPage(req);
  if (matched !== undefined) return matched;
  const meta = (req as unknown as Record<symbol, NextRequestMeta | undefined>)[NEXT_REQUEST_META];
  const page = pageOf(meta?.match);
  if (page !== undefined) return page;
  const invoked = meta?.invokePath;
  if (typeof invoked === 'string' && ERROR_PAGES.has(invoked)) return invoked;
  if (status === 404) return ROUTES.notFound;
  if (pathname.startsWith('/_next/')) return ROUTES.nextAsset;
  if (status >= 300 && status < 400 && status !== 304) return ROUTES.redirect;
  return publicFiles.has(pathname) ? pathname : ROUTES.publicFile;
}

const FOUND = Symbol('app-shell.route');

/**
 * nextRoute, found once per answer: the request's timing and its transaction both name it, and
 * the second to ask gets the first's answer.
 */
export function routeOf(
  req: IncomingMessage,
  res: object,
  status: number,
  pathname: string,
  publicFiles: ReadonlySet<string>,
): string {
  const found = (res as { [FOUND]?: string })[FOUND];
  if (found !== undefined) return found;
  const route = nextRoute(req, status, pathname, publicFiles);
  (res as { [FOUND]?: string })[FOUND] = route;
  return route;
}
