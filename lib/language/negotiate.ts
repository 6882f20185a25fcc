// The server's choice of language for a screen, from the request's Accept-Language: weights,
// ranges and `*` as RFC 9110 §12.5.4 and RFC 4647 define them, by `negotiator` (the one Express
// and Koa use). A missing, `*`, unknown or malformed header gets the default language.
import Negotiator from 'negotiator';

/**
 * SECURITY: an Accept- header is read no further than this. Negotiation costs time in proportion
 * to the ranges times the choices, and a stranger can send as many ranges as the server takes
 * header bytes (about 16 KiB): cut at the last whole range before this many characters, every
 * header costs what a browser's does. Browsers send well under 100.
 */
export const ACCEPT_HEADER_MAX_CHARS = 256;

/** An Accept- header as far as it is read: whole ranges, at most ACCEPT_HEADER_MAX_CHARS characters. */
export function boundedHeader(header: string): string {
  if (header.length <= ACCEPT_HEADER_MAX_CHARS) return header;
  const lastComma = header.lastIndexOf(',', ACCEPT_HEADER_MAX_CHARS);
  return lastComma === -1 ? '' : header.slice(0, lastComma);
}

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
