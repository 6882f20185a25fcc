import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { publicPathsOf, unknownPathTest } from '@lib/server/unknown-paths';
import { readPublicFiles } from '@lib/server/public-files';
import { ROUTES_MANIFEST } from '../../../support/routes-manifest';

const MANIFEST = ROUTES_MANIFEST;

const PUBLIC = publicPathsOf(['/robots.txt', '/files/LICENSE', '/.well-known/security.txt']);

describe('unknownPathTest: the paths the shell is certain Next answers with its 404', () => {
  // Made in each test, not once for the file: StrykerJS credits code to the test that runs it.
  const isUnknown = (pathname: string) => unknownPathTest(MANIFEST, false, PUBLIC)!(pathname);

  it.each([
    '/',
    '/nope',
    '/a/b/c',
    '/about/more',
    '/wp-login.php',
    '/.env',
    '/orders',
    '/api/nope',
    '/x~y_z-1.2',
  ])('%s is unknown', (pathname) => {
    expect(isUnknown(pathname)).toBe(true);
  });

  it.each([
    ["Next's build files", '/_next/static/x.js'],
    ["Next's data routes", '/_next/data/build/about.json'],
    ["Next's image optimizer", '/_next/image'],
    ["Next's folder itself", '/_next'],
    ["Next's folder, in other letters", '/_NEXT/data/x.json'],
    ['the root static/ folder Next still serves', '/static/logo.png'],
    ['the root static/ folder itself', '/static'],
  ])("%s are Next's: %s", (_what, pathname) => {
    expect(isUnknown(pathname)).toBe(false);
  });

  it.each([
    ['a page', '/about'],
    ['a page, in other letters (routes are not case-sensitive)', '/ABOUT'],
    ['a dynamic page', '/orders/17'],
    ['an API route', '/api/echo'],
    ['a public file', '/robots.txt'],
    ['a public file in other letters', '/ROBOTS.TXT'],
    ['a public file without an extension', '/files/LICENSE'],
    ['a folder of public/', '/files'],
    ['a dot-folder of public/', '/.well-known/security.txt'],
    ['a trailing slash (a redirect, or a file served with it)', '/nope/'],
    ['a public file with a trailing slash', '/robots.txt/'],
    ['any escape (Next decodes, once or twice)', '/nope%20here'],
    ['an escaped page', '/ab%6Fut'],
    ['an escape that does not decode', '/caf%E9%'],
    ['an escaped dot segment', '/a/%2E%2E/about'],
    ['a dot segment', '/a/../about'],
    ['a trailing dot segment', '/api/echo/.'],
    ['an empty segment', '//about'],
    ['an empty segment at the end', '/api/echo//'],
    ['a matrix parameter', '/nope;a=1'],
    ['a plus', '/a+b.txt'],
    ['a character outside the unreserved set', "/it's"],
    ['the 404 page itself', '/404'],
  ])('%s is left to Next: %s', (_what, pathname) => {
    expect(isUnknown(pathname)).toBe(false);
  });

  it('leaves what a rule of next.config could answer to Next: redirects, rewrites', () => {
    const withRules = unknownPathTest(
      {
        ...MANIFEST,
        redirects: [{ regex: '^/old$' }],
        headers: [{ regex: '^/headed(?:/)?$' }],
        rewrites: { beforeFiles: [{ regex: '^/before(?:/)?$' }], afterFiles: [{ regex: '^/after(?:/)?$' }] },
      },
      false,
      new Set(),
    )!;
    for (const pathname of ['/old', '/before', '/after']) expect(withRules(pathname)).toBe(false);
    expect(withRules('/other')).toBe(true);
  });

  // A headers() rule answers nothing: the shell sets its headers on its own 404 (lib/http/product-headers.ts).
  it('answers a path only a headers() rule matches, a catch-all one too', () => {
    const headed = unknownPathTest(
      {
        ...MANIFEST,
        headers: [{ regex: '^/headed(?:/)?$' }, { regex: '^(?:/((?:[^/]+?)(?:/(?:[^/]+?))*))?(?:/)?$' }],
      },
      false,
      new Set(),
    )!;
    expect(headed('/headed')).toBe(true);
    expect(headed('/other')).toBe(true);
  });

  it("leaves to Next what trailingSlash's redirect matches (a public file with no extension)", () => {
    const slashing = unknownPathTest(
      { ...MANIFEST, redirects: [{ regex: '^(?:/((?!\\.well-known(?:/.*)?)(?:[^/]+/)*[^/\\.]+))$' }] },
      false,
      new Set(),
    )!;
    expect(slashing('/files/LICENSE')).toBe(false);
    expect(slashing('/missing.txt')).toBe(true);
  });

  it('is none when the build routes per request: middleware, fallback rewrites, i18n, a base path', () => {
    expect(unknownPathTest(MANIFEST, true, new Set())).toBeNull();
    expect(
      unknownPathTest({ ...MANIFEST, rewrites: { fallback: [{ regex: '.*' }] } }, false, new Set()),
    ).toBeNull();
    expect(unknownPathTest({ ...MANIFEST, i18n: { locales: ['en'] } }, false, new Set())).toBeNull();
    expect(unknownPathTest({ ...MANIFEST, basePath: '/shop' }, false, new Set())).toBeNull();
  });

  it('reads rewrites given as one list (next.config returning an array), and a manifest without lists', () => {
    const listed = unknownPathTest(
      { ...MANIFEST, rewrites: [{ regex: '^/listed(?:/)?$' }] },
      false,
      new Set(),
    )!;
    expect([listed('/listed'), listed('/other')]).toEqual([false, true]);
    expect(unknownPathTest({}, false, new Set())!('/anything')).toBe(true);
  });

  it('never compares with case, even where the build says routes are case-sensitive (Next decides then)', () => {
    const sensitive = unknownPathTest({ ...MANIFEST, caseSensitive: true }, false, PUBLIC)!;
    expect(sensitive('/ABOUT')).toBe(false);
    expect(sensitive('/Robots.txt')).toBe(false);
  });
});

describe('publicPathsOf and readPublicFiles: what public/ serves', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(path.join(tmpdir(), 'public-paths-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('names every file and every folder on the way to one', () => {
    expect([...publicPathsOf(['/a/b/c.txt', '/d.txt'])].sort()).toEqual([
      '/a',
      '/a/b',
      '/a/b/c.txt',
      '/d.txt',
    ]);
  });

  it('follows symbolic links to files and folders, as Next serves them, and stops at a loop', () => {
    mkdirSync(path.join(root, 'public'));
    mkdirSync(path.join(root, 'elsewhere/inner'), { recursive: true });
    writeFileSync(path.join(root, 'elsewhere/file.txt'), 'x');
    writeFileSync(path.join(root, 'elsewhere/inner/deep.txt'), 'x');
    symlinkSync('../elsewhere/file.txt', path.join(root, 'public/linked.txt'));
    symlinkSync('../elsewhere', path.join(root, 'public/linked'), 'dir');
    symlinkSync('..', path.join(root, 'elsewhere/inner/loop'), 'dir');
    symlinkSync('../nowhere.txt', path.join(root, 'public/dangling.txt'));
    expect([...readPublicFiles(root, Infinity)].sort()).toEqual([
      '/linked.txt',
      '/linked/file.txt',
      '/linked/inner/deep.txt',
    ]);
  });

  it('walks a folder linked twice under both names', () => {
    mkdirSync(path.join(root, 'public'));
    mkdirSync(path.join(root, 'shared'));
    writeFileSync(path.join(root, 'shared/x.txt'), 'x');
    symlinkSync('../shared', path.join(root, 'public/one'), 'dir');
    symlinkSync('../shared', path.join(root, 'public/two'), 'dir');
    expect([...readPublicFiles(root, Infinity)].sort()).toEqual(['/one/x.txt', '/two/x.txt']);
  });
});
