// Whether a request comes from another site's page, by the headers browsers send with it. Used by
// every endpoint only this site's own pages should reach: the error-reporting tunnel and the beacons.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Why a request's own headers say it comes from another site, or '' when they do not. Browsers
 * send Sec-Fetch-Site, which decides alone (a proxy may rewrite Host); Origin against Host covers
 * browsers that do not. Requests with neither (non-browser clients) are not a site's pages: each
 * endpoint bounds what they can do on its own.
 */
export function crossSiteReason(headers: IncomingHttpHeaders): string {
  const site = headers['sec-fetch-site'];
  // Fixed words, never the header's value: an answer must not echo what a stranger sent.
  if (typeof site === 'string') return site === 'same-origin' ? '' : 'Sec-Fetch-Site is not same-origin';
  const origin = headers.origin;
  if (typeof origin !== 'string') return '';
  try {
    return new URL(origin).host === headers.host ? '' : 'Origin is another site';
  } catch {
    return 'Origin is not a URL';
  }
}
