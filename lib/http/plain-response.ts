// Small plain-text answers the server gives itself (tunnel, bad request targets, parser errors),
// always with the same security headers as every other response. Never throws.
import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { PRIVATE_ERROR_CACHE_CONTROL } from './private-errors';
import { securityHeaders, setMissingDefaults } from './security-headers';

const SECURITY_HEADERS = securityHeaders();

/** The answer's own headers: what it is, how long, never kept; no security headers. */
function ownHeaders(message: string, extra: Record<string, string>): Record<string, string> {
  return {
    'Cache-Control': 'no-store',
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(message)),
    ...extra,
  };
}

/** Every header of a plain answer, the security headers included: for answers with no response object. */
export function plainHeaders(message: string, extra: Record<string, string> = {}): Record<string, string> {
  return { ...SECURITY_HEADERS, ...ownHeaders(message, extra) };
}

/**
 * Writes the head of a plain answer on a response. The security headers are set only where the
 * response has none of that name yet (the pipeline sets its set on every response first, a page's
 * or the API's), and not passed to writeHead: so a product's own header of the same name, set when
 * the head is written (./product-headers.ts), is not replaced.
 */
export function writePlainHead(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  setMissingDefaults(res, SECURITY_HEADERS);
  res.writeHead(status, ownHeaders(message, extra));
}

/** Answers on a normal response object. */
export function sendPlain(
  res: ServerResponse,
  status: number,
  message: string,
  extra: Record<string, string> = {},
): void {
  try {
    if (res.headersSent || res.destroyed) return;
    writePlainHead(res, status, message, extra);
    res.end(message);
  } catch {
    res.destroy();
  }
}

/**
 * The bytes of a whole HTTP/1.1 response that closes its connection; to HEAD, the head alone (RFC
 * 9110 §9.3.2): bytes after it would be read as the answer to whatever comes next.
 */
export function plainResponseBytes(
  status: number,
  message: string,
  extra: Record<string, string> = {},
  { head: toHead = false }: { head?: boolean } = {},
): string {
  // SECURITY: the rule every error answer keeps (./private-errors.ts), here where no response
  // object is there to keep it.
  const cacheControl = status >= 400 ? PRIVATE_ERROR_CACHE_CONTROL : 'no-store';
  const headers = {
    ...plainHeaders(message, { 'Cache-Control': cacheControl, ...extra }),
    Connection: 'close',
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\r\n');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n\r\n${toHead ? '' : message}`;
}

/**
 * Answers straight on a socket, for requests Node never turned into a response object (parser
 * errors, CONNECT, upgrades), then closes it.
 */
export function writePlainToSocket(
  socket: Duplex,
  status: number,
  message: string,
  extra: Record<string, string> = {},
  options: { head?: boolean } = {},
): void {
  try {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(plainResponseBytes(status, message, extra, options));
    // Closed whole once the answer is out, not left half-open: a client that never closes its
    // side would hold the connection for ever, and a route still reading that request's body
    // learns it failed only when the socket closes (Node then aborts the request).
    const cut = setTimeout(() => socket.destroy(), SOCKET_LINGER_MS);
    cut.unref();
    socket.once('finish', () => {
      clearTimeout(cut);
      socket.destroy();
    });
  } catch {
    socket.destroy();
  }
}

/** How long an answer written to a socket may take to leave before the connection is cut. */
export const SOCKET_LINGER_MS = 500;
