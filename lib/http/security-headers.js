// The security headers every response carries: pages, the 404, API routes and static files.
// Plain CommonJS because next.config.js and the production server both load it without a compiler.

/**
 * Content-Security-Policy. Scripts come only from our origin: the production build is made with
 * webpack, which puts no inline <script> in the HTML (Turbopack's Pages Router output does, and a
 * static 404 cannot carry a per-request nonce). Error reports go to a same-origin tunnel, so
 * connect-src stays 'self'.
 * @param {{ dev?: boolean }} [options] `next dev` needs eval for Fast Refresh and inline styles for its overlay.
 */
function contentSecurityPolicy({ dev = false } = {}) {
  const directives = {
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

/**
 * @param {{ dev?: boolean }} [options]
 * @returns {{ key: string, value: string }[]}
 */
function securityHeaders(options = {}) {
  return [
    { key: 'Content-Security-Policy', value: contentSecurityPolicy(options) },
    // Two years, as hstspreload.org asks; `preload` is left to the operator because it is hard to undo.
    { key: 'Strict-Transport-Security', value: 'max-age=63072000; includeSubDomains' },
    { key: 'X-Content-Type-Options', value: 'nosniff' },
    { key: 'Referrer-Policy', value: 'strict-origin-when-cross-origin' },
    {
      key: 'Permissions-Policy',
      value:
        'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()',
    },
    { key: 'Cross-Origin-Opener-Policy', value: 'same-origin' },
    { key: 'Cross-Origin-Resource-Policy', value: 'same-origin' },
    // Older browsers ignore frame-ancestors.
    { key: 'X-Frame-Options', value: 'DENY' },
  ];
}

/**
 * Sets the headers on a response, from a list computed once. The production server calls this for
 * every request before Next sees it: a `headers()` rule in next.config.js does the same job but
 * costs about a quarter of an API route's throughput, because Next matches it on every request.
 * @param {{ dev?: boolean }} [options]
 * @returns {(res: import('node:http').ServerResponse) => void}
 */
function securityHeaderSetter(options = {}) {
  const entries = securityHeaders(options).map(
    ({ key, value }) => /** @type {[string, string]} */ ([key, value]),
  );
  return (res) => {
    for (const [name, value] of entries) res.setHeader(name, value);
  };
}

module.exports = { securityHeaders, contentSecurityPolicy, securityHeaderSetter };
