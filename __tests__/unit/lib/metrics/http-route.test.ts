import type { IncomingMessage } from 'node:http';
import { methodLabel, nextRoute, ROUTES } from '../../../../lib/metrics/http-route';

const PUBLIC = new Set(['/favicon.ico', '/robots.txt']);

/** A request as Next leaves it, with what its routing recorded. */
function handled(meta?: Record<string, unknown>): IncomingMessage {
  const req = {} as Record<symbol, unknown>;
  if (meta) req[Symbol.for('NextInternalRequestMeta')] = meta;
  return req as unknown as IncomingMessage;
}

describe('the route of a request Next answered', () => {
  it("is the matched page's pattern, never the path", () => {
    const req = handled({ match: { definition: { page: '/orders/[id]' } }, invokePath: '/orders/3' });
    expect(nextRoute(req, 200, '/orders/3', PUBLIC)).toBe('/orders/[id]');
  });

  it('is the error page Next invoked for an unknown path', () => {
    expect(nextRoute(handled({ invokePath: '/404' }), 404, '/no/such/page', PUBLIC)).toBe('/404');
    expect(nextRoute(handled({ invokePath: '/_error' }), 404, '/_error', PUBLIC)).toBe('/_error');
    expect(nextRoute(handled({ invokePath: '/500' }), 500, '/orders/3', PUBLIC)).toBe('/500');
  });

  it('never takes an invoked path that is not an error page', () => {
    expect(nextRoute(handled({ invokePath: '/some/raw/path' }), 200, '/some/raw/path', PUBLIC)).toBe(
      ROUTES.publicFile,
    );
  });

  it('is /404 for any 404 Next left nothing about (a missing asset)', () => {
    expect(nextRoute(handled(), 404, '/_next/static/chunks/gone.js', PUBLIC)).toBe('/404');
  });

  it("names Next's assets, redirects and public files with a fixed few", () => {
    expect(nextRoute(handled(), 200, '/_next/static/chunks/main.js', PUBLIC)).toBe(ROUTES.nextAsset);
    expect(nextRoute(handled(), 308, '/orders/', PUBLIC)).toBe(ROUTES.redirect);
    expect(nextRoute(handled(), 200, '/robots.txt', PUBLIC)).toBe('/robots.txt');
    expect(nextRoute(handled(), 304, '/favicon.ico', PUBLIC)).toBe('/favicon.ico');
    expect(nextRoute(handled(), 200, '/not-listed.txt', PUBLIC)).toBe(ROUTES.publicFile);
  });

  it('counts 300 to 399 but 304 as redirects, and nothing either side', () => {
    for (const status of [300, 301, 302, 307, 308, 399])
      expect(nextRoute(handled(), status, '/orders/', PUBLIC)).toBe(ROUTES.redirect);
    for (const status of [299, 304, 400])
      expect(nextRoute(handled(), status, '/orders/', PUBLIC)).toBe(ROUTES.publicFile);
  });

  it('ignores a match of the wrong shape', () => {
    expect(nextRoute(handled({ match: { definition: { page: 42 } } }), 404, '/x', PUBLIC)).toBe('/404');
  });
});

describe('the method label', () => {
  it("keeps HTTP's methods and folds any other into _OTHER", () => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'])
      expect(methodLabel(method)).toBe(method);
    expect(methodLabel('')).toBe('_OTHER');
    expect(methodLabel('PROPFIND')).toBe('_OTHER');
    expect(methodLabel('get')).toBe('_OTHER');
    expect(methodLabel(undefined)).toBe('_OTHER');
  });
});
