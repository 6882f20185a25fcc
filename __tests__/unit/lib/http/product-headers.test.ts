// The product's headers() on the shell's own answers: matched as next-server matches them, from
// rules compiled by Next's own build step (load-custom-routes), applied only where the shell answers.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ShellResponse } from '@lib/server/shell-response';
import loadCustomRoutes, { type Header } from 'next/dist/lib/load-custom-routes';
import {
  applyProductHeaders,
  handedToNext,
  type HeadersManifest,
  productHeadersOf,
  type ProductHeaders,
  readProductHeaders,
  takenBack,
} from '@lib/http/product-headers';

type Config = Parameters<typeof loadCustomRoutes>[0];

/** The manifest `next build` would write for these rules and settings (its own processing step). */
async function manifestFor(
  headers: Header[],
  settings: Partial<{ basePath: string; i18n: HeadersManifest['i18n']; caseSensitive: boolean }> = {},
): Promise<HeadersManifest> {
  const config = {
    basePath: settings.basePath ?? '',
    i18n: settings.i18n ?? null,
    trailingSlash: false,
    headers: async () => headers,
  } as unknown as Config;
  const routes = await loadCustomRoutes(config);
  return {
    headers: routes.headers,
    basePath: settings.basePath ?? '',
    i18n: settings.i18n ?? null,
    caseSensitive: settings.caseSensitive === true,
  };
}

function request(headers: Record<string, string> = {}): IncomingMessage {
  const req = new IncomingMessage(new Socket());
  req.headers = { host: 'shop.example', ...headers };
  return req;
}

async function matcher(...args: Parameters<typeof manifestFor>): Promise<ProductHeaders> {
  const match = productHeadersOf(await manifestFor(...args));
  if (!match) throw new Error('no rules');
  return match;
}

const TEAM = { key: 'x-product-team', value: 'storefront' };

describe("a product's headers() rules", () => {
  it('are none without rules: nothing is matched at all', async () => {
    expect(productHeadersOf(await manifestFor([]))).toBeNull();
    expect(productHeadersOf({})).toBeNull();
  });

  it("match each path as Next's own matcher does, later rules replacing earlier ones", async () => {
    const match = await matcher([
      { source: '/:path*', headers: [TEAM, { key: 'Referrer-Policy', value: 'same-origin' }] },
      { source: '/api/:path*', headers: [{ key: 'Referrer-Policy', value: 'no-referrer' }] },
    ]);
    expect(match(request(), '/')).toEqual({
      'x-product-team': 'storefront',
      'Referrer-Policy': 'same-origin',
    });
    expect(match(request(), '/about?x=1')).toEqual({
      'x-product-team': 'storefront',
      'Referrer-Policy': 'same-origin',
    });
    expect(match(request(), '/api/health')).toEqual({
      'x-product-team': 'storefront',
      'Referrer-Policy': 'no-referrer',
    });
    expect(match(request(), '/apiary')['Referrer-Policy']).toBe('same-origin');
  });

  it("compile a rule's parameters into its names and values, from the path and from has", async () => {
    const match = await matcher([
      {
        source: '/blog/:slug',
        has: [{ type: 'query', key: 'ref', value: '(?<ref>[a-z]+)' }],
        headers: [{ key: 'x-post', value: 'post-:slug-from-:ref' }],
      },
    ]);
    expect(match(request(), '/blog/hello?ref=news')).toEqual({ 'x-post': 'post-hello-from-news' });
    expect(match(request(), '/blog/hello')).toEqual({});
    expect(match(request(), '/blog/hello?ref=NEWS')).toEqual({});
  });

  it('honour has and missing: a header, a cookie, the host', async () => {
    const match = await matcher([
      {
        source: '/:path*',
        has: [{ type: 'header', key: 'X-Beta' }],
        headers: [{ key: 'x-beta', value: 'on' }],
      },
      {
        source: '/:path*',
        has: [{ type: 'cookie', key: 'team' }],
        headers: [{ key: 'x-cookie', value: 'yes' }],
      },
      {
        source: '/:path*',
        has: [{ type: 'host', value: 'shop.example' }],
        headers: [{ key: 'x-host', value: 'shop' }],
      },
      {
        source: '/:path*',
        missing: [{ type: 'header', key: 'x-beta' }],
        headers: [{ key: 'x-stable', value: '1' }],
      },
    ]);
    expect(match(request(), '/')).toEqual({ 'x-host': 'shop', 'x-stable': '1' });
    expect(match(request({ 'x-beta': '1', cookie: 'team=a', host: 'other.example:8080' }), '/')).toEqual({
      'x-beta': 'on',
      'x-cookie': 'yes',
    });
  });

  it("ask has and missing nothing on a path the rule's source does not match", async () => {
    const match = await matcher([
      {
        source: '/beta',
        has: [{ type: 'header', key: 'x-beta' }],
        headers: [{ key: 'x-beta', value: 'on' }],
      },
      {
        source: '/beta',
        missing: [{ type: 'header', key: 'x-beta' }],
        headers: [{ key: 'x-stable', value: '1' }],
      },
    ]);
    expect(match(request({ 'x-beta': '1' }), '/beta')).toEqual({ 'x-beta': 'on' });
    expect(match(request(), '/beta')).toEqual({ 'x-stable': '1' });
    // The condition holds on these, the source does not: no rule applies.
    expect(match(request({ 'x-beta': '1' }), '/about')).toEqual({});
    expect(match(request(), '/about')).toEqual({});
  });

  it('send a value exactly as written when its rule captured nothing, as Next does', async () => {
    // A quoted-pair (RFC 9110 §5.6.4) after a colon: compiled as a rule with parameters is, the
    // backslashes would be taken for path-to-regexp's escapes and lost.
    const link = '<https://cdn.example/>; rel="preconnect"; title="the \\"fast\\" one"';
    const match = await matcher([{ source: '/about', headers: [{ key: 'Link', value: link }] }]);
    expect(match(request(), '/about')).toEqual({ Link: link });
  });

  it('add up Set-Cookie values, as Next does, and replace every other name', async () => {
    const match = await matcher([
      {
        source: '/:path*',
        headers: [
          { key: 'Set-Cookie', value: 'a=1' },
          { key: 'x-one', value: '1' },
        ],
      },
      {
        source: '/:path*',
        headers: [
          { key: 'Set-Cookie', value: 'b=2' },
          { key: 'x-one', value: '2' },
        ],
      },
    ]);
    expect(match(request(), '/')).toEqual({ 'Set-Cookie': ['a=1', 'b=2'], 'x-one': '2' });
  });

  it('match with the base path, and without it only a rule that asked for none', async () => {
    const match = await matcher(
      [
        { source: '/:path*', headers: [TEAM] },
        { source: '/outside', basePath: false, headers: [{ key: 'x-outside', value: '1' }] },
      ],
      { basePath: '/shop' },
    );
    expect(match(request(), '/shop/about')).toEqual({ 'x-product-team': 'storefront' });
    expect(match(request(), '/shop')).toEqual({ 'x-product-team': 'storefront' });
    expect(match(request(), '/about')).toEqual({});
    expect(match(request(), '/outside')).toEqual({ 'x-outside': '1' });
  });

  it('match a rule outside the base path, with i18n, on the path outside it', async () => {
    const match = await matcher(
      [{ source: '/outside', basePath: false, headers: [{ key: 'x-outside', value: '1' }] }],
      { i18n: { locales: ['en', 'fr'], defaultLocale: 'en' }, basePath: '/shop' },
    );
    // The default locale goes in front of the path as it came, nothing taken off or put before it.
    expect(match(request(), '/outside')).toEqual({ 'x-outside': '1' });
    expect(match(request(), '/fr/outside')).toEqual({ 'x-outside': '1' });
    expect(match(request(), '/shop/outside')).toEqual({});
  });

  it('match without case, unless the build is case sensitive', async () => {
    const rules = [{ source: '/About', headers: [TEAM] }];
    expect((await matcher(rules))(request(), '/about')).toEqual({ 'x-product-team': 'storefront' });
    expect((await matcher(rules, { caseSensitive: true }))(request(), '/about')).toEqual({});
    expect((await matcher(rules, { caseSensitive: true }))(request(), '/About')).toEqual({
      'x-product-team': 'storefront',
    });
  });

  it("match a path that names no locale as the default locale's, as Next's router does", async () => {
    const i18n = {
      locales: ['en', 'fr', 'de'],
      defaultLocale: 'en',
      domains: [{ domain: 'boutique.example', defaultLocale: 'fr' }],
    };
    const match = await matcher(
      [
        { source: '/about', headers: [TEAM] },
        { source: '/en/only', locale: false, headers: [{ key: 'x-english', value: '1' }] },
      ],
      { i18n, basePath: '/shop' },
    );
    expect(match(request(), '/shop/about')).toEqual({ 'x-product-team': 'storefront' });
    expect(match(request(), '/shop/fr/about')).toEqual({ 'x-product-team': 'storefront' });
    expect(match(request(), '/shop/it/about')).toEqual({});
    // `locale: false`: matched as written; a path with no locale is the default locale's.
    expect(match(request(), '/shop/en/only')).toEqual({ 'x-english': '1' });
    expect(match(request(), '/shop/only')).toEqual({ 'x-english': '1' });
    expect(match(request(), '/shop/fr/only')).toEqual({});
    // The base path alone is the default locale's home.
    const shopHome = await matcher([{ source: '/', headers: [TEAM] }], { i18n, basePath: '/shop' });
    expect(shopHome(request(), '/shop')).toEqual({ 'x-product-team': 'storefront' });
    expect(shopHome(request(), '/shopping')).toEqual({});
    const home = await matcher([{ source: '/', headers: [TEAM] }], { i18n });
    expect(home(request(), '/')).toEqual({ 'x-product-team': 'storefront' });
    expect(home(request(), '/de')).toEqual({ 'x-product-team': 'storefront' });
    // The default locale's home is `/en`, no slash after it: a catch-all `/(.*)` (one segment
    // or more after the locale) is not the home page's, with or without a locale.
    const catchAll = await matcher([{ source: '/(.*)', headers: [TEAM] }], { i18n });
    expect(catchAll(request(), '/')).toEqual({});
    expect(catchAll(request(), '/fr')).toEqual({});
    expect(catchAll(request(), '/about')).toEqual({ 'x-product-team': 'storefront' });
    // The domain's default locale: on boutique.example, `/` is `/fr`.
    const french = await matcher([{ source: '/fr', locale: false, headers: [TEAM] }], { i18n });
    expect(french(request({ host: 'boutique.example:443' }), '/')).toEqual({
      'x-product-team': 'storefront',
    });
    expect(french(request(), '/')).toEqual({});
    // Next's own files get no locale.
    const files = await matcher([{ source: '/_next/:path*', locale: false, headers: [TEAM] }], { i18n });
    expect(files(request(), '/_next/static/a.js')).toEqual({ 'x-product-team': 'storefront' });
  });

  it('set nothing on a path Next does not route (it redirects it, with no rule headers)', async () => {
    const match = await matcher([{ source: '/:path*', headers: [TEAM] }]);
    expect(match(request(), '//about')).toEqual({});
    expect(match(request(), '/a//b')).toEqual({});
    expect(match(request(), '/a\\b')).toEqual({});
    // A query's own slashes are no path's.
    expect(match(request(), '/about?next=//x')).toEqual({ 'x-product-team': 'storefront' });
  });

  it("are read from a build's routes-manifest.json once; none from a build without it", async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'product-headers-'));
    try {
      mkdirSync(path.join(root, '.next'));
      expect(readProductHeaders(root, '.next')).toBeNull();
      writeFileSync(
        path.join(root, '.next/routes-manifest.json'),
        JSON.stringify(await manifestFor([{ source: '/:path*', headers: [TEAM] }])),
      );
      expect(readProductHeaders(root, '.next')!(request(), '/x')).toEqual({ 'x-product-team': 'storefront' });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("the product's headers on the shell's answers", () => {
  const response = (req: IncomingMessage) => new ShellResponse(req);
  const RULES: Header[] = [
    {
      source: '/:path*',
      headers: [
        TEAM,
        { key: 'X-Frame-Options', value: 'SAMEORIGIN' },
        { key: 'Cache-Control', value: 'public' },
      ],
    },
  ];

  it("win over the shell's defaults set before, and yield to the answer's own headers", async () => {
    const req = request();
    const res = response(req);
    res.setHeader('x-frame-options', 'DENY');
    applyProductHeaders(await matcher(RULES), res, '/api/health');
    res.writeHead(200, { 'Cache-Control': 'no-store' });
    expect(res.getHeader('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.getHeader('x-product-team')).toBe('storefront');
    expect(res.getHeader('cache-control')).toBe('no-store');
  });

  it('are matched against the URL the request came with, not one Next made of it later', async () => {
    const req = request();
    const res = response(req);
    applyProductHeaders(await matcher([{ source: '/api/:path*', headers: [TEAM] }]), res, '/api/missing');
    req.url = '/404';
    res.writeHead(404);
    expect(res.getHeader('x-product-team')).toBe('storefront');
  });

  it("are left to Next on Next's answers, and set again on a 404 the shell takes back", async () => {
    const req = request();
    const res = response(req);
    applyProductHeaders(await matcher(RULES), res, '/');
    handedToNext(res);
    res.setHeader('x-frame-options', 'DENY');
    // What Next's route removed stays removed: the answer is Next's.
    res.writeHead(200);
    expect(res.getHeader('x-frame-options')).toBe('DENY');
    expect(res.getHeader('x-product-team')).toBeUndefined();

    const again = response(req);
    applyProductHeaders(await matcher(RULES), again, '/');
    handedToNext(again);
    takenBack(again);
    again.setHeader('x-frame-options', 'DENY');
    again.writeHead(404);
    expect(again.getHeader('x-frame-options')).toBe('SAMEORIGIN');
  });

  it('never throw: a rule that fails for a path leaves the answer without it', () => {
    const req = request();
    const res = response(req);
    applyProductHeaders(
      () => {
        throw new Error('cannot compile');
      },
      res,
      '/',
    );
    expect(() => res.writeHead(200, { 'Content-Type': 'text/plain' })).not.toThrow();
    expect(res.statusCode).toBe(200);
  });
});
