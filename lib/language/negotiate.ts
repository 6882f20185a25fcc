// The server's choice of language for a screen, from the request's Accept-Language: weights,
// ranges and `*` as RFC 9110 §12.5.4 and RFC 4647 define them, by `negotiator` (the one Express
// and Koa use). A missing, `*`, unknown or malformed header gets the default language.
import Negotiator from 'negotiator';
import { boundedHeader } from '../http/accept-bound';

/**
 * The language of `offered` the header prefers, or `fallback`. Ties (and `*`) go to the earlier
 * language of `offered`, so the fallback should come first (./offered.ts lists it so).
 */
export function negotiateLanguage(
  header: string | string[] | undefined,
  offered: readonly string[],
  fallback: string,
): string {
  if (header === undefined) return fallback;
  const text = Array.isArray(header) ? header.join(',') : header;
  try {
    const negotiator = new Negotiator({ headers: { 'accept-language': boundedHeader(text) } });
    return negotiator.language([...offered]) ?? fallback;
  } catch {
    // Nothing on an error screen's path may throw: a header the parser chokes on gets the default.
    return fallback;
  }
}
