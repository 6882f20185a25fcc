import type { IncomingMessage } from 'node:http';
import { followNextMatch, matchedPage, methodLabel, nextRoute, ROUTES } from '@lib/metrics/http-route';

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

/** What Next's addRequestMeta does (next/dist/server/request-meta.js), on the object it finds. */
function addRequestMeta(req: IncomingMessage, key: string, value: unknown): void {
  const holder = req as unknown as Record<symbol, Record<string, unknown> | undefined>;
  const meta = holder[META] ?? {};
  meta[key] = value;
  holder[META] = meta;
}
const META = Symbol.for('NextInternalRequestMeta');
const matchOf = (page: string) => ({ definition: { page, pathname: page }, params: {} });

describe('the page a request matched before Next rendered its error page', () => {
  const followed = () => {
    const req = {} as IncomingMessage;
    followNextMatch(req);
    return req;
  };

  it('is the failed page’s pattern, not /_error, for a 500', () => {
    const req = followed();
    addRequestMeta(req, 'invokePath', '/products/7');
    addRequestMeta(req, 'match', matchOf('/products/[id]'));
    addRequestMeta(req, 'match', matchOf('/_error'));
    expect(matchedPage(req)).toBe('/products/[id]');
    expect(nextRoute(req, 500, '/products/7', PUBLIC)).toBe('/products/[id]');
    // Next still reads back the match it wrote last.
    expect((req as unknown as Record<symbol, { match: unknown }>)[META]!.match).toEqual(matchOf('/_error'));
  });

  it('is the page’s pattern, not /404, for its notFound, and not /500 for a custom 500 page', () => {
    const req = followed();
    addRequestMeta(req, 'match', matchOf('/blog/[slug]'));
    addRequestMeta(req, 'match', matchOf('/404'));
    expect(nextRoute(req, 404, '/blog/gone', PUBLIC)).toBe('/blog/[slug]');
    const other = followed();
    addRequestMeta(other, 'match', matchOf('/broken'));
    addRequestMeta(other, 'match', matchOf('/500'));
    expect(nextRoute(other, 500, '/broken', PUBLIC)).toBe('/broken');
  });

  it('is the last page matched that is not an error page', () => {
    const req = followed();
    addRequestMeta(req, 'match', matchOf('/a'));
    addRequestMeta(req, 'match', matchOf('/b'));
    addRequestMeta(req, 'match', { definition: { page: 42 } });
    addRequestMeta(req, 'match', undefined);
    expect(matchedPage(req)).toBe('/b');
  });

  it('is none for an unknown path, whose only match is the 404 page', () => {
    const req = followed();
    addRequestMeta(req, 'invokePath', '/404');
    addRequestMeta(req, 'match', matchOf('/404'));
    expect(matchedPage(req)).toBeUndefined();
    expect(nextRoute(req, 404, '/no/such/page', PUBLIC)).toBe('/404');
  });

  it('is forgotten when Next routes the request again (fallback: false, unknown to the page)', () => {
    const req = followed();
    addRequestMeta(req, 'invokePath', '/blog/unknown');
    addRequestMeta(req, 'match', matchOf('/blog/[slug]'));
    addRequestMeta(req, 'invokePath', '/404');
    expect((req as unknown as Record<symbol, { invokePath: unknown }>)[META]!.invokePath).toBe('/404');
    addRequestMeta(req, 'match', matchOf('/404'));
    expect(nextRoute(req, 404, '/blog/unknown', PUBLIC)).toBe('/404');
  });

  it('is kept on the request when Next moves to a copy of its meta (an API route)', () => {
    const req = followed();
    addRequestMeta(req, 'match', matchOf('/api/fails'));
    const holder = req as unknown as Record<symbol, Record<string, unknown>>;
    // Next's copy carries what was set (enumerable accessors).
    expect({ ...holder[META] }.match).toEqual(matchOf('/api/fails'));
    holder[META] = { ...holder[META], match: matchOf('/_error') };
    expect(holder[META]!.match).toEqual(matchOf('/_error'));
    expect(nextRoute(req, 500, '/api/fails', PUBLIC)).toBe('/api/fails');
  });

  it('lets Next remove its match (removeRequestMeta), in strict code', () => {
    const req = followed();
    addRequestMeta(req, 'match', matchOf('/products/[id]'));
    const meta = (req as unknown as Record<symbol, Record<string, unknown>>)[META]!;
    expect(delete meta.match).toBe(true);
    expect(meta.match).toBeUndefined();
    addRequestMeta(req, 'match', matchOf('/_error'));
    expect(nextRoute(req, 500, '/products/7', PUBLIC)).toBe('/products/[id]');
  });

  it("names the error page Next invoked from Next's copy of its meta too", () => {
    const req = followed();
    addRequestMeta(req, 'invokePath', '/500');
    const holder = req as unknown as Record<symbol, Record<string, unknown>>;
    // As for an API route: Next gives its handler a copy of its meta, which the request then carries.
    holder[META] = { ...holder[META] };
    expect(holder[META]!.invokePath).toBe('/500');
    expect(nextRoute(req, 500, '/orders/3', PUBLIC)).toBe('/500');
  });

  it('lets Next remove the path it invoked (removeRequestMeta), in strict code', () => {
    const req = followed();
    addRequestMeta(req, 'invokePath', '/500');
    const meta = (req as unknown as Record<symbol, Record<string, unknown>>)[META]!;
    // Next removes no invokePath today; its removeRequestMeta deletes any key it is given.
    expect(delete meta.invokePath).toBe(true);
    expect(meta.invokePath).toBeUndefined();
    expect(nextRoute(req, 200, '/robots.txt', PUBLIC)).toBe('/robots.txt');
  });

  it('leaves a meta object some other code made before alone', () => {
    const req = handled({ match: matchOf('/x') });
    const before = (req as unknown as Record<symbol, unknown>)[META];
    followNextMatch(req);
    expect((req as unknown as Record<symbol, unknown>)[META]).toBe(before);
    expect(matchedPage(req)).toBeUndefined();
  });

  it('never throws for a request that refuses properties', () => {
    const frozen = Object.freeze({}) as IncomingMessage;
    expect(() => followNextMatch(frozen)).not.toThrow();
    expect(matchedPage(frozen)).toBeUndefined();
  });

  it('is none for a request never followed', () => {
    expect(matchedPage(handled({ match: matchOf('/x') }))).toBeUndefined();
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
