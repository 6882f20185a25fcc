// Problem details (RFC 9457) for the answers the server gives API clients itself: JSON, never an
// HTML screen, with the security headers of every API answer. Never throws.
import { type ServerResponse, STATUS_CODES } from 'node:http';
import { apiSecurityHeaders, setDefaults } from './security-headers';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

const SECURITY_HEADERS = apiSecurityHeaders();

/** The body: a fixed title per status and a fixed detail; nothing the client sent is echoed. */
export function problemBody(status: number, detail: string): string {
  return JSON.stringify({ type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail });
}

export function sendProblem(
  res: ServerResponse,
  status: number,
  detail: string,
  { method, headers = {} }: { method?: string; headers?: Record<string, string> } = {},
): void {
  try {
    if (res.headersSent || res.destroyed) return;
    const body = problemBody(status, detail);
    // The API's set in place of a page's (a base path's `/shop/api/…` got a page's by its target), set
    // before the head and not passed to writeHead: the product's own headers, set as the head is
    // written (./product-headers.ts), win over these defaults.
    setDefaults(res, SECURITY_HEADERS);
    res.writeHead(status, {
      'Cache-Control': 'no-store',
      'Content-Type': PROBLEM_CONTENT_TYPE,
      'Content-Length': String(Buffer.byteLength(body)),
      ...headers,
    });
    res.end(method === 'HEAD' ? undefined : body);
  } catch {
    res.destroy();
  }
}
