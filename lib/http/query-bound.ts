// What a query string may cost before Next sees it. Next's API runtime copies the query with a loop
// that calls URLSearchParams.getAll for every key, so its cost grows with the square of the number
// of parameters. The measured curve (bench/stranger-cost.js), the bound and why it is 256:
// docs/query-bound.md.

/** More parameters than this and the request is refused with 414. */
export const QUERY_MAX_PARAMS = 256;

/**
 * Health answers the same whatever its query; probes never pay for one. The exact paths only: Next
 * redirects `/api/health/?x` to `/api/health?x`, query kept, and must be given it to keep.
 */
const HEALTH_PATH = /^\/api\/health(?:\/live|\/ready)?$/;

export type QueryVerdict =
  /** `url` is what Next should see: the same, or without the query (health); `path` has no query. */
  | { kind: 'pass'; url: string; path: string }
  /** Too many parameters; `path` is the URL without its query, for the error screen. */
  | { kind: 'too-many'; path: string };

/**
 * The number of parameters in a query string, counted as URLSearchParams counts them (empty
 * pieces between `&`s are no parameter), and never past `limit + 1`: a linear scan that stops early.
 */
export function countParams(query: string, limit = QUERY_MAX_PARAMS): number {
  let count = 0;
  let pieceHasText = false;
  for (let i = 0; i < query.length; i += 1) {
    if (query.charCodeAt(i) === 38 /* & */) {
      if (pieceHasText) count += 1;
      if (count > limit) return count;
      pieceHasText = false;
    } else {
      pieceHasText = true;
    }
  }
  return pieceHasText ? count + 1 : count;
}

/** @param url a path with an optional query (`req.url` once the request target is checked) */
export function boundQuery(
  url: string,
  limit = QUERY_MAX_PARAMS,
  /** The paths a probe answers at (lib/health/stage.ts): their query is dropped, never counted. */
  isProbe: (path: string) => boolean = (path) => HEALTH_PATH.test(path),
): QueryVerdict {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return { kind: 'pass', url, path: url };
  const path = url.slice(0, queryAt);
  if (isProbe(path)) return { kind: 'pass', url: path, path };
  if (countParams(url.slice(queryAt + 1), limit) > limit) return { kind: 'too-many', path };
  return { kind: 'pass', url, path };
}

/** Whether a path (without its query) is the API's: its answers are JSON, never an HTML screen. */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}
