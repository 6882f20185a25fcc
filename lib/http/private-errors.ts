// SECURITY: an error answer is one visitor's: the 500 screen carries that request's reference, and
// any error screen may say what went wrong for them. A page that set `Cache-Control: public,
// s-maxage=600` before it failed would have a CDN serve that screen, and its reference, to everyone
// for ten minutes (bare Next sends the page's header with its error screen). So every answer of
// status 400 and above goes out `private, no-store`, whatever was set before, by whom.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const PRIVATE_ERROR_CACHE_CONTROL = 'private, no-store';

type Headers = OutgoingHttpHeaders | readonly (string | number | readonly string[])[] | undefined;

const isCacheControl = (name: unknown) => String(name).toLowerCase() === 'cache-control';

/** `headers` as writeHead takes them (an object, or a flat list of names and values), without Cache-Control. */
function withoutCacheControl(headers: Headers): Headers {
  if (headers === undefined) return headers;
  if (!Array.isArray(headers)) {
    // The common case, a 404's own few headers and none of them Cache-Control: nothing to copy.
    // Stryker disable next-line ConditionalExpression: a cost only; the copy below would hold the same headers.
    if (!Object.keys(headers).some(isCacheControl)) return headers;
    return Object.fromEntries(
      Object.entries(headers).filter(([name]) => !isCacheControl(name)),
    ) as OutgoingHttpHeaders;
  }
  // A name and its value go together: each value goes with the name before it.
  return headers.filter((_entry, at) => !isCacheControl(headers[at - (at % 2)]));
}

/** Set on an answer whose error heads are kept private (lib/server/shell-response.ts carries it). */
export const ERRORS_PRIVATE = Symbol('app-shell.errorsPrivate');

/** An answer that can keep its error heads private: the server's own (lib/server/shell-response.ts). */
export interface KeepsErrorsPrivate extends ServerResponse {
  [ERRORS_PRIVATE]: boolean;
}

/**
 * Makes every error answer of `res` private: its writeHead (which an implicit head calls too) sets
 * the one Cache-Control once the status is known (privateErrorHead). A flag, not a wrapper made
 * for each request.
 */
export function keepErrorAnswersPrivate(res: KeepsErrorsPrivate): void {
  res[ERRORS_PRIVATE] = true;
}

/**
 * What writeHead does first for an answer kept private: for a status of 400 and above, the head's
 * own headers (`rest`, as writeHead takes them after the status, changed in place) lose any
 * Cache-Control, and the answer's is set to `private, no-store`. Never throws more than writeHead
 * itself would.
 */
export function privateErrorHead(res: KeepsErrorsPrivate, status: number, rest: unknown[]): void {
  // (Once the head is sent, setHeader throws and so does writeHead itself, as it would have.)
  if (!res[ERRORS_PRIVATE] || !(status >= 400)) return;
  try {
    const at = typeof rest[0] === 'string' ? 1 : 0;
    rest[at] = withoutCacheControl(rest[at] as Headers);
    res.setHeader('Cache-Control', PRIVATE_ERROR_CACHE_CONTROL);
  } catch {
    // Headers a stranger could not have shaped; writeHead says what is wrong with them.
  }
}
