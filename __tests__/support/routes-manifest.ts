// A routes manifest as `next build` writes one, for the unit tests of what the server reads from it.

/** A page, the 404 page, an API route, a dynamic page, and Next's own trailing-slash redirect. */
export const ROUTES_MANIFEST = {
  basePath: '',
  caseSensitive: false,
  staticRoutes: [
    { page: '/about', regex: '^/about(?:/)?$' },
    { page: '/404', regex: '^/404(?:/)?$' },
    { page: '/api/echo', regex: '^/api/echo(?:/)?$' },
  ],
  dynamicRoutes: [{ page: '/orders/[id]', regex: '^/orders/([^/]+?)(?:/)?$' }],
  redirects: [{ regex: '^(?:/((?:[^/]+?)(?:/(?:[^/]+?))*))/$' }],
  headers: [],
  rewrites: { beforeFiles: [], afterFiles: [], fallback: [] },
};
