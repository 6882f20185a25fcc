// How much of a stranger's Accept- header any negotiation here reads: Accept-Language for the
// screens (lib/language/negotiate.ts), Accept-Encoding for the answers the server compresses.

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
