// The security headers every response carries: pages, the 404, API routes, static files and the
// server's own answers. The production server sets them on every request before Next sees it: a
// `headers()` rule in next.config.js does the same job but costs about a quarter of an API route's
// throughput, because Next matches it on every request.
import type { ServerResponse } from 'node:http';

export interface HeaderOptions {
  /** `next dev` needs eval for Fast Refresh, inline styles for its overlay and a WebSocket. */
  dev?: boolean;
}

/**
 * Content-Security-Policy. Scripts come only from our origin: the production build is made with
 * webpack, which puts no inline <script> in the HTML (Turbopack's Pages Router output does, and a
 * static 404 cannot carry a per-request nonce; see docs/webpack-build.md). Error reports go to a
 * same-origin tunnel, so connect-src stays 'self'.
 */
export function contentSecurityPolicy({ dev = false }: HeaderOptions = {}): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': dev ? ["'self'", "'unsafe-eval'"] : ["'self'"],
    'style-src': dev ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': dev ? ["'self'", 'ws:'] : ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'manifest-src': ["'self'"],
    'worker-src': ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

/** Name → value, in the order they are sent. */
export function securityHeaders(options: HeaderOptions = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options),
    // Two years, as hstspreload.org asks; `preload` is left to the operator because it is hard to undo.
    'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    'Permissions-Policy':
      'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()',
    'Cross-Origin-Opener-Policy': 'same-origin',
    'Cross-Origin-Resource-Policy': 'same-origin',
    // Older browsers ignore frame-ancestors.
    'X-Frame-Options': 'DENY',
  };
}

/** Sets the headers on a response, from a list computed once. */
export function securityHeaderSetter(options: HeaderOptions = {}): (res: ServerResponse) => void {
  const entries = Object.entries(securityHeaders(options));
  return (res) => {
    for (const [name, value] of entries) res.setHeader(name, value);
  };
}
