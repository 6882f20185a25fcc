// Under `npm run dev`, each page answer's policy names a nonce for the scripts Next writes inline.
// Turbopack's Pages Router document carries one such line (`var __nextHmrInitialVersion=…`: the hot
// reloader's version when the page was rendered, so an edit made before its socket opens is not
// missed), which script-src 'self' refuses; its value changes with every edit, so no hash can name
// it. Next stamps its own inline scripts with the nonce it finds in the request's
// Content-Security-Policy header (as when a proxy in front sets the policy), so the request carries
// the answer's policy. A script of a product's own, written inline without the nonce, is still
// refused, as in production, whose build writes no inline script and whose policy has no nonce
// (docs/webpack-build.md).
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isApiPath } from './query-bound';
import { contentSecurityPolicy, type HeaderOptions } from './security-headers';

const POLICY = 'Content-Security-Policy';

/**
 * Gives a page answer (not one under /api, which gets its own, stricter policy) a nonce of its own,
 * in the policy `options` make otherwise (its report directives kept).
 */
export function giveDevelopmentNonce(
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
  options: HeaderOptions = {},
): void {
  if (isApiPath(url)) return;
  // 128 bits, as CSP Level 3 asks of a nonce; base64, which Next's reader accepts.
  const scriptNonce = randomBytes(16).toString('base64');
  const policy = contentSecurityPolicy({ ...options, dev: true, scriptNonce });
  res.setHeader(POLICY, policy);
  req.headers[POLICY.toLowerCase()] = policy;
}
