import { isBuildId, MAX_NAME_LENGTH, servedPrefixes, wantedFile, withoutPrefix } from '@lib/fleet/names';

describe('which build file a path asks for', () => {
  it.each([
    [
      '/_next/static/chunks/webpack-0cfde7341fc339f2.js',
      { kind: 'static', file: 'chunks/webpack-0cfde7341fc339f2.js', build: null },
    ],
    [
      '/_next/static/chunks/pages/orders/[id]-4f1c2a.js',
      { kind: 'static', file: 'chunks/pages/orders/[id]-4f1c2a.js', build: null },
    ],
    [
      '/_next/static/chunks/pages/orders/%5Bid%5D-4f1c2a.js',
      { kind: 'static', file: 'chunks/pages/orders/[id]-4f1c2a.js', build: null },
    ],
    ['/_next/static/css/a1b2c3.css', { kind: 'static', file: 'css/a1b2c3.css', build: null }],
    ['/_next/static/media/font.3f4e.woff2', { kind: 'static', file: 'media/font.3f4e.woff2', build: null }],
    // The older font format, and both spellings of a JPEG an image import keeps.
    ['/_next/static/media/font.3f4e.woff', { kind: 'static', file: 'media/font.3f4e.woff', build: null }],
    ['/_next/static/media/photo.9a8b.jpg', { kind: 'static', file: 'media/photo.9a8b.jpg', build: null }],
    ['/_next/static/media/photo.9a8b.jpeg', { kind: 'static', file: 'media/photo.9a8b.jpeg', build: null }],
    [
      '/_next/static/IzYkSKwDeThygEvDGcOR5/_buildManifest.js',
      { kind: 'static', file: 'IzYkSKwDeThygEvDGcOR5/_buildManifest.js', build: 'IzYkSKwDeThygEvDGcOR5' },
    ],
    [
      '/_next/static/IzYkSKwDeThygEvDGcOR5/_ssgManifest.js',
      { kind: 'static', file: 'IzYkSKwDeThygEvDGcOR5/_ssgManifest.js', build: 'IzYkSKwDeThygEvDGcOR5' },
    ],
    ['/_next/data/IzYkSKwDeThygEvDGcOR5/orders/7.json', { kind: 'data', build: 'IzYkSKwDeThygEvDGcOR5' }],
    ['/_next/data/IzYkSKwDeThygEvDGcOR5/index.json', { kind: 'data', build: 'IzYkSKwDeThygEvDGcOR5' }],
  ])('%s is a build file', (path, wanted) => {
    expect(wantedFile(path)).toEqual(wanted);
  });

  it.each([
    // Not Next's build files.
    '/',
    '/orders/7',
    '/api/health',
    '/_next/image',
    '/_next/app-shell/fleet',
    '/favicon.ico',
    // Shapes Next never writes.
    '/_next/static/chunks',
    '/_next/static/chunks/',
    '/_next/static/chunks/a.txt',
    '/_next/static/chunks/a.js.map',
    '/_next/static/other/a.js',
    '/_next/static/IzYk/secrets.js',
    '/_next/static/IzYk/deep/_buildManifest.js',
    // Only the manifest's own name, whole: not one that ends or starts like it.
    '/_next/static/IzYk/x_buildManifest.js',
    '/_next/static/IzYk/_buildManifest.js.map',
    '/_next/data/IzYk',
    '/_next/data/IzYk/orders/7',
    '/_next/data/bad$id/index.json',
    // Another path, host or scheme through the name.
    '/_next/static/chunks/../../../etc/passwd.js',
    '/_next/static/chunks/%2e%2e/%2e%2e/api/health.js',
    '/_next/static/chunks/a%2Fb.js',
    '/_next/static/chunks/a%5Cb.js',
    '/_next/static/chunks//evil.example/a.js',
    '/_next/static/chunks/http:%2F%2Fevil.example%2Fa.js',
    '/_next/static/chunks/a%00.js',
    '/_next/static/chunks/%E0%A4%A.js',
    '/_next/static/chunks/a b.js',
    '/_next/static/chunks/a?.js',
    '/_next/data/..%2F..%2Fapi/x.json',
    '/_next/static/chunks/./a.js',
    '/_next/static/chunks/%2E/a.js',
    // The data prefix's length, but not the prefix.
    '/aaaaaaaaaa/IzYk/index.json',
  ])('%s is not', (path) => {
    expect(wantedFile(path)).toBeNull();
  });

  it('refuses a name longer than Next writes before splitting it', () => {
    expect(wantedFile(`/_next/static/chunks/${'a'.repeat(MAX_NAME_LENGTH)}.js`)).toBeNull();
  });

  it(`takes a name of ${MAX_NAME_LENGTH} characters in short segments, and refuses one more`, () => {
    // Every segment is one Next could write, so only the length can refuse it.
    const named = (length: number) => {
      const prefix = '/_next/static/chunks/';
      const suffix = 'xx.js';
      const middle = 'a/'.repeat((length - prefix.length - suffix.length) / 2);
      const path = `${prefix}${middle}${suffix}`;
      expect(path).toHaveLength(length);
      return path;
    };
    // The bound docs/fleet.md states, written out: a changed constant must change this test.
    expect(MAX_NAME_LENGTH).toBe(1024);
    const longest = named(MAX_NAME_LENGTH);
    expect(wantedFile(longest)).toEqual({ kind: 'static', file: longest.slice(14), build: null });
    // One character more: the same segments, the first one letter longer.
    const over = longest.replace('/chunks/a/', '/chunks/aa/');
    expect(over).toHaveLength(MAX_NAME_LENGTH + 1);
    expect(wantedFile(over)).toBeNull();
  });

  it('knows a build id by its shape only', () => {
    expect(isBuildId('IzYkSKwDeThygEvDGcOR5')).toBe(true);
    expect(isBuildId('a'.repeat(65))).toBe(false);
    expect(isBuildId('a/b')).toBe(false);
    expect(isBuildId(7)).toBe(false);
  });
});

describe('servedPrefixes and withoutPrefix: build files under basePath or an assetPrefix path', () => {
  it.each([
    [undefined, undefined, []],
    ['/shop', '', ['/shop']],
    ['', '/assets/', ['/assets']],
    ['', 'assets', ['/assets']],
    ['', '/', []],
    ['/shop', '/shop', ['/shop']],
    ['/shop', '/shop/assets', ['/shop/assets', '/shop']],
    ['/a', '/assets', ['/assets', '/a']],
    // A CDN's URL: Next strips no host, and the CDN asks the app the plain path.
    ['', 'https://cdn.example.com/assets', []],
    // Without its scheme too: to a browser, `//cdn.example.com/assets/_next/…` is that host's.
    ['', '//cdn.example.com/assets', []],
    // Slashes too many at the end, dropped as where the shell writes its own files' URLs
    // (lib/config/asset-urls.ts): an old tab asks for its reporting file at `/assets/_next/…`.
    ['', '/assets//', ['/assets']],
  ])('basePath %j, assetPrefix %j: %j', (basePath, assetPrefix, prefixes) => {
    expect(servedPrefixes(basePath, assetPrefix)).toEqual(prefixes);
  });

  it.each([
    ['/shop/_next/static/chunks/a.js', '/_next/static/chunks/a.js'],
    ['/shop/assets/_next/static/chunks/a.js', '/_next/static/chunks/a.js'],
    ['/_next/static/chunks/a.js', '/_next/static/chunks/a.js'],
    ['/shopping/_next/static/chunks/a.js', '/shopping/_next/static/chunks/a.js'],
    ['/shop/x/_next/static/chunks/a.js', '/shop/x/_next/static/chunks/a.js'],
    ['/shop/_nextx/a.js', '/shop/_nextx/a.js'],
  ])('%s is read as %s', (pathname, local) => {
    expect(withoutPrefix(pathname, ['/shop/assets', '/shop'])).toBe(local);
  });
});
