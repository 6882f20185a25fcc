import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  API_NOT_FOUND,
  hasProxy,
  notFoundStage,
  readNotFoundStage,
  type NotFoundStage,
} from '@lib/server/not-found';
import { notFoundFile } from '@lib/error-pages/paths';
import { rawRequest } from '../../../support/http';
import { ROUTES_MANIFEST } from '../../../support/routes-manifest';

const MANIFEST = ROUTES_MANIFEST;

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
    if (!stage.answerIfUnknown(req, res, pathname)) {
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

  it('leaves to Next a missing image, script or font, which it answers in plain text', async () => {
    await rawRequest(base, '/nope.png', { headers: { 'sec-fetch-dest': 'image' } });
    await rawRequest(base, '/nope.js', { headers: { 'sec-fetch-dest': 'script' } });
    const page = await rawRequest(base, '/nope', { headers: { 'sec-fetch-dest': 'document' } });
    expect(passedOn).toEqual(['GET /nope.png', 'GET /nope.js']);
    expect(page.status).toBe(404);
  });

  it('answers an unknown API path with problem details, never a page', async () => {
    const answer = await rawRequest(base, '/api/nope');
    expect([answer.status, answer.headers['content-type']]).toEqual([404, 'application/problem+json']);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 404, detail: API_NOT_FOUND });
    const head = await rawRequest(base, '/api/nope', { method: 'HEAD' });
    expect([head.status, head.body]).toEqual([404, '']);
  });

  it('counts API paths below the base path as API paths', async () => {
    stage = notFoundStage({
      documents: DOCUMENTS,
      isUnknown: () => true,
      compress: false,
      basePath: '/shop',
    })!;
    const api = await rawRequest(base, '/shop/api/nope');
    const page = await rawRequest(base, '/api/nope');
    const bare = await rawRequest(base, '/shop/api');
    // As long as the base path, not below it: a page.
    const beside = await rawRequest(base, '/abcd/api/nope');
    const glued = await rawRequest(base, '/shopx/api/nope');
    const root = await rawRequest(base, '/shop');
    const head = await rawRequest(base, '/shop/api/nope', { method: 'HEAD' });
    expect(api.headers['content-type']).toBe('application/problem+json');
    expect(bare.headers['content-type']).toBe('application/problem+json');
    expect([head.status, head.headers['content-type'], head.body]).toEqual([
      404,
      'application/problem+json',
      '',
    ]);
    for (const answer of [page, beside, glued, root])
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it("answers in Next's stead with Next's body headers gone and its other headers kept", async () => {
    const answered = await new Promise<{ headers: http.IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const own = http.createServer((req, res) => {
          res.setHeader('ETag', '"next"');
          res.setHeader('Content-Encoding', 'br');
          res.setHeader('X-Product-Rule', 'kept');
          stage.answer(req, res, '/nope');
        });
        own.listen(0, '127.0.0.1', () => {
          const { port } = own.address() as AddressInfo;
          rawRequest(`http://127.0.0.1:${port}`, '/nope', { headers: { 'accept-language': 'fr' } })
            .then((answer) => resolve(answer), reject)
            .finally(() => own.close());
        });
      },
    );
    expect(answered.headers.etag).toBeUndefined();
    expect(answered.headers['content-encoding']).toBeUndefined();
    expect(answered.headers['x-product-rule']).toBe('kept');
    expect(answered.body).toBe(DOCUMENTS.get('fr')!.toString());
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

  const functions = (manifest: object) =>
    writeFileSync(
      path.join(root, '.next', 'server', 'functions-config-manifest.json'),
      JSON.stringify(manifest),
    );
  const answersBeforeNext = (stage: NotFoundStage | null, pathname: string) => {
    const req = Object.assign(new http.IncomingMessage(null as never), { method: 'GET', headers: {} });
    const res = new http.ServerResponse(req);
    return stage!.answerIfUnknown(req, res, pathname);
  };

  it("answers before Next without a proxy, and with one only in Next's stead (in every field Next writes)", () => {
    const document = path.join(root, '.next', notFoundFile('en'));
    mkdirSync(path.dirname(document), { recursive: true });
    writeFileSync(document, '<html>Page not found</html>');
    functions({ functions: {} });
    middleware({ sortedMiddleware: [], middleware: {} });
    expect(answersBeforeNext(read(), '/nope')).toBe(true);
    middleware({ sortedMiddleware: ['/'], middleware: {} });
    expect(answersBeforeNext(read(), '/nope')).toBe(false);
    middleware({ sortedMiddleware: [], middleware: { '/': {} } });
    expect(answersBeforeNext(read(), '/nope')).toBe(false);
    middleware({});
    functions({ functions: { '/_middleware': {} } });
    expect(answersBeforeNext(read(), '/nope')).toBe(false);
    functions({ functions: { '/_proxy': {} } });
    expect(answersBeforeNext(read(), '/nope')).toBe(false);
    functions({ functions: { '/api/x': {} } });
    expect(answersBeforeNext(read(), '/nope')).toBe(true);
    expect(read()).not.toBeNull();
  });

  it("answers an unknown API path below the build's base path with problem details, and pages elsewhere", async () => {
    const document = path.join(root, '.next', notFoundFile('en'));
    mkdirSync(path.dirname(document), { recursive: true });
    writeFileSync(document, '<html>Page not found</html>');
    middleware({});
    functions({});
    const answered = (pathname: string) =>
      new Promise<string | undefined>((resolve, reject) => {
        const stage = read()!;
        const own = http.createServer((req, res) => stage.answer(req, res, pathname));
        own.listen(0, '127.0.0.1', () => {
          const { port } = own.address() as AddressInfo;
          rawRequest(`http://127.0.0.1:${port}`, pathname)
            .then((answer) => resolve(String(answer.headers['content-type'])), reject)
            .finally(() => own.close());
        });
      });
    // A manifest without a base path: none.
    const withoutBase: Partial<typeof MANIFEST> = { ...MANIFEST };
    delete withoutBase.basePath;
    writeFileSync(path.join(root, '.next', 'routes-manifest.json'), JSON.stringify(withoutBase));
    expect(await answered('/api/nope')).toBe('application/problem+json');
    writeFileSync(
      path.join(root, '.next', 'routes-manifest.json'),
      JSON.stringify({ ...MANIFEST, basePath: '/shop' }),
    );
    expect(await answered('/shop/api/nope')).toBe('application/problem+json');
    expect(await answered('/api/nope')).toBe('text/html; charset=utf-8');
  });

  it('counts an unreadable manifest as a proxy: Next decides', () => {
    middleware({});
    expect(hasProxy(root, '.next')).toBe(true);
    functions({});
    expect(hasProxy(root, '.next')).toBe(false);
  });

  it('is none without the documents (a build made before them)', () => {
    middleware({});
    functions({});
    expect(read()).toBeNull();
  });
});
