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

/**
 * The route of a request Next answered, from what Next recorded while it routed: the matched
 * page's pattern (`/orders/[id]`, `/api/health/ready`), the error page it invoked for an unknown
 * path (`/404`), or else one of a few fixed names. A public file keeps its own path only when it is
 * one of `publicFiles`, so the label set stays bounded by what the build ships.
 */
export function nextRoute(
  req: IncomingMessage,
  status: number,
  pathname: string,
  publicFiles: ReadonlySet<string>,
): string {
  const meta = (req as unknown as Record<symbol, NextRequestMeta | undefined>)[NEXT_REQUEST_META];
  const page = meta?.match?.definition?.page;
  if (typeof page === 'string') return page;
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
