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

/**
 * Makes every error answer of `res` private: its writeHead (which an implicit head calls too) sets
 * the one Cache-Control once the status is known. Never throws more than writeHead itself would.
 */
export function keepErrorAnswersPrivate(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function privateWhenError(this: ServerResponse, status: number, ...rest: unknown[]) {
    // (Once the head is sent, setHeader throws and so does writeHead itself, as it would have.)
    if (status >= 400) {
      try {
        const at = typeof rest[0] === 'string' ? 1 : 0;
        rest[at] = withoutCacheControl(rest[at] as Headers);
        this.setHeader('Cache-Control', PRIVATE_ERROR_CACHE_CONTROL);
      } catch {
        // Headers a stranger could not have shaped; writeHead says what is wrong with them.
      }
    }
    return (writeHead as (...args: unknown[]) => ServerResponse).call(this, status, ...rest);
  } as ServerResponse['writeHead'];
}
