// The security headers every response carries: pages, the 404, API routes, static files and the
// server's own answers. The production server sets them on every request before Next sees it: a
// `headers()` rule in next.config.js does the same job but costs about a quarter of an API route's
// throughput, because Next matches it on every request. Answers under /api get the shorter set
// OWASP's REST Security Cheat Sheet names for API responses (docs/security-headers.md). They are
// defaults: a product's own `headers()` entry of the same name replaces one, on Next's answers
// (Next sets it after these) and on the shell's (./product-headers.ts).
import type { ServerResponse } from 'node:http';
import { isApiPath } from './query-bound';

export interface HeaderOptions {
  /** `next dev` needs eval for Fast Refresh, inline styles for its overlay and a WebSocket. */
  dev?: boolean;
  /**
   * Where the browser reports a violation of a page's policy: the same-origin tunnel's path, with a
   * DSN (lib/reporting/tunnel/security-reports.ts). Null or absent: no report directives, as there
   * is nowhere to send one.
   */
  reportPath?: string | null;
  /** One page answer's nonce for the scripts Next writes inline (development only: ./development-nonce.ts). */
  scriptNonce?: string;
}

/** The Reporting API's name for the tunnel, in `report-to` and `Reporting-Endpoints`. */
export const REPORT_ENDPOINT = 'csp';

/**
 * Content-Security-Policy. Scripts come only from our origin: the production build is made with
 * webpack, which puts no inline <script> in the HTML (Turbopack's Pages Router output does, and a
 * static 404 cannot carry a per-request nonce; see docs/webpack-build.md). Error reports go to a
 * same-origin tunnel, so connect-src stays 'self'.
 *
 * Styles: `<style>` elements and stylesheets only from our origin (style-src-elem), but inline
 * style *attributes* allowed (style-src-attr): React's `style={{…}}` is server-rendered as a
 * `style="…"` attribute, and next/image writes `style="color:transparent"` on every image; with
 * `style-src 'self'` alone, both rendered under `npm run dev` and were dropped by `npm start`. An
 * attribute can restyle its own element, never load or run anything (docs/security-headers.md).
 * `style-src 'self'` stays for browsers older than the -elem/-attr directives (Chromium 75,
 * Firefox 108, Safari 15.4), which then drop style attributes as before.
 */
export function contentSecurityPolicy({
  dev = false,
  reportPath = null,
  scriptNonce,
}: HeaderOptions = {}): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': [
      ...(dev ? ["'self'", "'unsafe-eval'"] : ["'self'"]),
      ...(scriptNonce ? [`'nonce-${scriptNonce}'`] : []),
    ],
    // (Under `next dev` the overlay's and Fast Refresh's <style> elements need 'unsafe-inline',
    // which a style-src-elem of 'self' would take away again.)
    'style-src': dev ? ["'self'", "'unsafe-inline'"] : ["'self'"],
    ...(dev ? {} : { 'style-src-elem': ["'self'"], 'style-src-attr': ["'unsafe-inline'"] }),
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': dev ? ["'self'", 'ws:'] : ["'self'"],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    'manifest-src': ["'self'"],
    'worker-src': ["'self'"],
    // report-to for browsers with the Reporting API (Chromium), which then ignore report-uri;
    // report-uri for the others (Firefox, Safari), deprecated but still the one they send.
    ...(reportPath ? { 'report-uri': [reportPath], 'report-to': [REPORT_ENDPOINT] } : {}),
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
    // The endpoint report-to names; relative, so it is this origin whatever the Host.
    ...(options.reportPath ? { 'Reporting-Endpoints': `${REPORT_ENDPOINT}="${options.reportPath}"` } : {}),
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

/** Sets each of `headers` on `res`, replacing what was set under its name. */
export function setDefaults(res: ServerResponse, headers: Record<string, string>): void {
  for (const name of Object.keys(headers)) res.setHeader(name, headers[name] as string);
}

/** Sets each of `headers` on `res` that it has none of yet (the pipeline's set stays as it chose). */
export function setMissingDefaults(res: ServerResponse, headers: Record<string, string>): void {
  for (const name of Object.keys(headers))
    if (!res.hasHeader(name)) res.setHeader(name, headers[name] as string);
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
