import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  notFoundStage,
  readNotFoundStage,
  unknownPathTest,
  type NotFoundStage,
} from '../../../../lib/server/not-found';
import { notFoundFile } from '../../../../lib/error-pages/paths';
import { rawRequest } from '../../../support/http';

/** A manifest as `next build` writes one: a page, a dynamic page, an API route, Next's own redirect. */
const MANIFEST = {
  basePath: '',
  caseSensitive: false,
  staticRoutes: [
    { page: '/about', regex: '^/about(?:/)?$' },
    { page: '/404', regex: '^/404(?:/)?$' },
  ],
  dynamicRoutes: [{ page: '/orders/[id]', regex: '^/orders/([^/]+?)(?:/)?$' }],
  redirects: [{ regex: '^(?:/((?:[^/]+?)(?:/(?:[^/]+?))*))/$' }],
  headers: [],
  rewrites: { beforeFiles: [], afterFiles: [], fallback: [] },
};

describe('unknownPathTest: the paths Next would answer with its 404', () => {
  // Made in each test, not once for the file: StrykerJS credits code to the test that runs it.
  const isUnknown = (path: string) => unknownPathTest(MANIFEST, false, new Set(['/robots.txt']))!(path);

  it.each(['/', '/nope', '/a/b/c', '/about/more', '/wp-login.php', '/.env', '/orders'])(
    '%s is unknown',
    (path) => {
      expect(isUnknown(path)).toBe(true);
    },
  );

  it.each([
    ['a page', '/about'],
    ['a page, in other letters (routes are not case-sensitive)', '/ABOUT'],
    ['a dynamic page', '/orders/17'],
    ['a public file', '/robots.txt'],
    ['Next’s own files', '/_next/static/x.js'],
    ['a trailing slash (Next redirects it)', '/nope/'],
    ['an escaped page (Next matches the decoded path)', '/ab%6Fut'],
    ['an escaped public file', '/robots%2Etxt'],
    ['an escape that does not decode (Next answers it its own way)', '/caf%E9%'],
    ['an escaped dot segment', '/a/%2E%2E/about'],
    ['an escaped control character', '/a%00b'],
    ['a dot segment', '/a/../about'],
    ['an empty segment', '//about'],
    ['the 404 page itself', '/404'],
  ])('%s is left to Next: %s', (_what, path) => {
    expect(isUnknown(path)).toBe(false);
  });

  it('leaves what a rule of next.config could match to Next: redirects, headers, rewrites', () => {
    const withRules = unknownPathTest(
      {
        ...MANIFEST,
        redirects: [{ regex: '^/old(?:/)?$' }],
        headers: [{ regex: '^/headed(?:/)?$' }],
        rewrites: { beforeFiles: [{ regex: '^/before(?:/)?$' }], afterFiles: [{ regex: '^/after(?:/)?$' }] },
      },
      false,
      new Set(),
    )!;
    for (const path of ['/old', '/headed', '/before', '/after']) expect(withRules(path)).toBe(false);
    expect(withRules('/other')).toBe(true);
  });

  it('is none when the build routes per request: middleware, fallback rewrites, i18n, a base path', () => {
    expect(unknownPathTest(MANIFEST, true, new Set())).toBeNull();
    expect(
      unknownPathTest({ ...MANIFEST, rewrites: { fallback: [{ regex: '.*' }] } }, false, new Set()),
    ).toBeNull();
    expect(unknownPathTest({ ...MANIFEST, i18n: { locales: ['en'] } }, false, new Set())).toBeNull();
    expect(unknownPathTest({ ...MANIFEST, basePath: '/shop' }, false, new Set())).toBeNull();
  });

  it('finds an escaped path unknown when neither it nor its decoded form is known', () => {
    expect(isUnknown('/nothing%20here')).toBe(true);
    expect(isUnknown('/caf%C3%A9')).toBe(true);
  });

  it('leaves to Next a public file whose name holds an escape, asked as it is named', () => {
    const withEscapedName = unknownPathTest(MANIFEST, false, new Set(['/100%25.txt']))!;
    expect(withEscapedName('/100%25.txt')).toBe(false);
  });

  it('reads rewrites given as one list (next.config returning an array)', () => {
    const listed = unknownPathTest(
      { ...MANIFEST, rewrites: [{ regex: '^/listed(?:/)?$' }] },
      false,
      new Set(),
    )!;
    expect([listed('/listed'), listed('/other')]).toEqual([false, true]);
  });

  it('matches case where the build says routes are case-sensitive', () => {
    const sensitive = unknownPathTest({ ...MANIFEST, caseSensitive: true }, false, new Set(['/robots.txt']))!;
    expect(sensitive('/ABOUT')).toBe(true);
    expect(sensitive('/Robots.txt')).toBe(true);
    expect(sensitive('/about')).toBe(false);
  });
});

const DOCUMENTS = new Map([
  ['en', Buffer.from('<html lang="en">Page not found</html>')],
  ['fr', Buffer.from('<html lang="fr">Page introuvable</html>')],
  ['ar', Buffer.from('<html lang="ar" dir="rtl">الصفحة غير موجودة</html>')],
]);

let server: Server;
let base: string;
let stage: NotFoundStage;
let passedOn: string[];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const pathname = (req.url ?? '/').split('?')[0]!;
    if (!stage(req, res, pathname)) {
      passedOn.push(`${req.method} ${pathname}`);
      res.end('next');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  stage = notFoundStage({ documents: DOCUMENTS, isUnknown: (path) => path !== '/about', compress: true })!;
  passedOn = [];
});

describe('notFoundStage: "Page not found" from memory', () => {
  it.each([
    ['fr-CH, fr;q=0.9', 'fr'],
    ['ar', 'ar'],
    ['de', 'en'],
    ['*', 'en'],
    [undefined, 'en'],
  ])('Accept-Language %p gets the %s document, a 404 that varies on the header', async (header, language) => {
    const answer = await rawRequest(base, '/nope?x=1', {
      headers: header ? { 'accept-language': header } : {},
    });
    expect(answer.status).toBe(404);
    expect(answer.body).toBe(DOCUMENTS.get(language)!.toString());
    expect(answer.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'private, no-cache, no-store, max-age=0, must-revalidate',
      vary: 'Accept-Encoding, Accept-Language',
      'content-language': language,
      'content-length': String(DOCUMENTS.get(language)!.length),
    });
  });

  it('gzips for a client that takes it, as Next does, and not for one that refuses it', async () => {
    const zipped = await new Promise<{ encoding?: string; body: Buffer }>((resolve, reject) => {
      http
        .get(
          `${base}/nope`,
          { headers: { 'accept-encoding': 'gzip, br', 'accept-language': 'fr' } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({ encoding: res.headers['content-encoding'], body: Buffer.concat(chunks) }),
            );
          },
        )
        .on('error', reject);
    });
    expect(zipped.encoding).toBe('gzip');
    expect(gunzipSync(zipped.body).toString()).toBe(DOCUMENTS.get('fr')!.toString());
    const refused = await rawRequest(base, '/nope', { headers: { 'accept-encoding': 'gzip;q=0, identity' } });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it('does not gzip where Next does not compress', async () => {
    stage = notFoundStage({ documents: DOCUMENTS, isUnknown: () => true, compress: false })!;
    const answer = await rawRequest(base, '/nope', { headers: { 'accept-encoding': 'gzip' } });
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toBe('Accept-Language');
  });

  it('answers HEAD with the headers alone', async () => {
    const answer = await rawRequest(base, '/nope', { method: 'HEAD', headers: { 'accept-language': 'fr' } });
    expect(answer.status).toBe(404);
    expect(answer.body).toBe('');
    expect(answer.headers['content-length']).toBe(String(DOCUMENTS.get('fr')!.length));
  });

  it('leaves known paths and other methods to Next', async () => {
    await rawRequest(base, '/about');
    await rawRequest(base, '/nope', { method: 'POST' });
    expect(passedOn).toEqual(['GET /about', 'POST /nope']);
  });

  it('is none without documents', () => {
    expect(notFoundStage({ documents: new Map(), isUnknown: () => true, compress: true })).toBeNull();
  });
});

describe('readNotFoundStage: from a build folder', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'not-found-'));
    mkdirSync(path.join(root, '.next', 'server'), { recursive: true });
    writeFileSync(path.join(root, '.next', 'routes-manifest.json'), JSON.stringify(MANIFEST));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const read = () =>
    readNotFoundStage({ root, distDir: '.next', languages: ['en'], publicFiles: new Set(), compress: false });
  const middleware = (manifest: object) =>
    writeFileSync(path.join(root, '.next', 'server', 'middleware-manifest.json'), JSON.stringify(manifest));

  it('is a stage without middleware, and none with it (in either field Next writes)', () => {
    const document = path.join(root, '.next', notFoundFile('en'));
    mkdirSync(path.dirname(document), { recursive: true });
    writeFileSync(document, '<html>Page not found</html>');
    middleware({ sortedMiddleware: [], middleware: {} });
    expect(read()).not.toBeNull();
    middleware({ sortedMiddleware: ['/'], middleware: {} });
    expect(read()).toBeNull();
    middleware({ sortedMiddleware: [], middleware: { '/': {} } });
    expect(read()).toBeNull();
    middleware({});
    expect(read()).not.toBeNull();
  });

  it('is none without the documents (a build made before them)', () => {
    middleware({});
    expect(read()).toBeNull();
  });
});
