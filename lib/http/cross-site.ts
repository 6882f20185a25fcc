// Whether a request comes from another site's page, by the headers browsers send with it. Used by
// every endpoint only this site's own pages should reach: the error-reporting tunnel (which lets a
// client with neither header through) and the beacons (which count only this site's pages).
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Whether an Origin is the origin a request's Host names. Both through the WHATWG URL parser, the
 * Host read with the Origin's scheme: host names compare case-insensitively, and a port left out is
 * that scheme's default (`http://example.com` is `example.com:80`, never `example.com:8080`). The
 * scheme itself cannot be checked (TLS may end at the balancer), only that it is a page's. Null
 * when the Origin is no URL at all (`null`, which a browser sends for an opaque origin, is one).
 */
function sameOriginAsHost(origin: string, host: string | undefined): boolean | null {
  let page: URL;
  try {
    page = new URL(origin);
  } catch {
    return null;
  }
  if ((page.protocol !== 'http:' && page.protocol !== 'https:') || !host) return false;
  // A Host is a host and an optional port (RFC 9110 §7.2): one with a path (even a bare `/`),
  // credentials, a query, a fragment or white space in it names no origin at all.
  if (/[/\\?#@\s]/.test(host)) return false;
  try {
    const named = new URL(`${page.protocol}//${host}`);
    return named.hostname === page.hostname && named.port === page.port;
  } catch {
    return false;
  }
}

/**
 * Why a request's own headers say it comes from another site, or '' when they do not. Browsers
 * send Sec-Fetch-Site, which decides alone (a proxy may rewrite Host); Origin against Host covers
 * browsers that do not. Requests with neither (non-browser clients) are not a site's pages: each
 * endpoint bounds what they can do on its own (a count takes none: sameOriginReason).
 */
export function crossSiteReason(headers: IncomingHttpHeaders): string {
  const site = headers['sec-fetch-site'];
  // Fixed words, never the header's value: an answer must not echo what a stranger sent.
  if (typeof site === 'string') return site === 'same-origin' ? '' : 'Sec-Fetch-Site is not same-origin';
  const origin = headers.origin;
  if (typeof origin !== 'string') return '';
  const same = sameOriginAsHost(origin, headers.host);
  if (same === null) return 'Origin is not a URL';
  return same ? '' : 'Origin is another site';
}

/**
 * Why a request is not shown to come from this site's own page, or '' when it is: `cross_site`
 * when its headers name another site (or no site: `Origin: null`), `no_origin` when it has neither
 * Sec-Fetch-Site nor Origin. Every browser this site serves sends one or both with a POST
 * (navigator.sendBeacon, a service worker's fetch), so a request with neither is a client that is
 * no browser. SECURITY: this keeps out a bare `curl`, not a forger: any client can write
 * `Sec-Fetch-Site: same-origin`. What such a client can still do is each endpoint's to bound.
 */
export function sameOriginReason(headers: IncomingHttpHeaders): '' | 'cross_site' | 'no_origin' {
  if (headers['sec-fetch-site'] === undefined && headers.origin === undefined) return 'no_origin';
  return crossSiteReason(headers) ? 'cross_site' : '';
}
