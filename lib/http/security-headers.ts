// The security headers every response carries: pages, the 404, API routes, static files and the
// server's own answers. The production server sets them on every request before Next sees it: a
// `headers()` rule in next.config.js does the same job but costs about a quarter of an API route's
// throughput, because Next matches it on every request. Answers under /api get the shorter set
// OWASP's REST Security Cheat Sheet names for API responses (docs/security-headers.md).
import type { ServerResponse } from 'node:http';
import { isApiPath } from './query-bound';

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

// Two years, as hstspreload.org asks; `preload` is left to the operator because it is hard to undo.
const HSTS = 'max-age=63072000; includeSubDomains';

/** Name → value, in the order they are sent: for pages and everything not under /api. */
export function securityHeaders(options: HeaderOptions = {}): Record<string, string> {
  return {
    'Content-Security-Policy': contentSecurityPolicy(options),
    'Strict-Transport-Security': HSTS,
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

/**
 * For answers under /api: JSON for programs, never a page. A stricter CSP than a page's (nothing may
 * load, run or frame it, even opened in a tab), HSTS, nosniff, CORP and X-Frame-Options. What a
 * page's set adds (Referrer-Policy, Permissions-Policy, COOP) governs a document's own links,
 * features and windows, which an answer that loads nothing does not have; leaving it off saves
 * every probe about 450 bytes and three headers (docs/security-headers.md).
 */
export function apiSecurityHeaders(): Record<string, string> {
  return {
    'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
    'Strict-Transport-Security': HSTS,
    'X-Content-Type-Options': 'nosniff',
    'Cross-Origin-Resource-Policy': 'same-origin',
    'X-Frame-Options': 'DENY',
  };
}

interface HeaderList {
  names: readonly string[];
  values: readonly string[];
}

function listOf(headers: Record<string, string>): HeaderList {
  return { names: Object.keys(headers), values: Object.values(headers) };
}

/**
 * Sets the headers on a response, the API's or a page's by its target, from lists computed once.
 * (An indexed loop: this runs on every request, and destructuring the entries cost as much as the
 * setHeader calls themselves in a profile.)
 */
export function securityHeaderSetter(
  options: HeaderOptions = {},
): (res: ServerResponse, url: string) => void {
  const pages = listOf(securityHeaders(options));
  const api = listOf(apiSecurityHeaders());
  return (res, url) => {
    // (A query after `/api/…` changes nothing; a bare `/api?…` gets a page's set, the larger one.)
    const { names, values } = isApiPath(url) ? api : pages;
    for (let i = 0; i < names.length; i += 1) res.setHeader(names[i] as string, values[i] as string);
  };
}
