// How the page-weight budget splits a page's first-load JS (bench/lib/page-weight.js): the app's own
// files, Next's runtime, and the page manifests that grow with every page a product adds. Read from
// a build made up here, so each part's files and bytes are known.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { firstLoadJs, firstLoadParts, holdsOnly, shellFirstLoad } from '../../../bench/lib/page-weight';

let dist: string;
const gzip = (text: string) => gzipSync(text, { level: 9 }).length;

/** Each file's text: distinct, so that each part's bytes are its own files'. */
const FILES: Record<string, string> = {
  'static/chunks/webpack-0a1b.js': 'webpack runtime '.repeat(10),
  'static/chunks/framework-2c3d.js': 'react dom '.repeat(40),
  'static/chunks/main-4e5f.js': 'next client '.repeat(30),
  'static/chunks/pages/_app-6a7b.js': 'the shell app '.repeat(20),
  'static/chunks/pages/_error-8c9d.js': 'error screen '.repeat(5),
  'static/chunks/pages/orders/[id]-1e2f.js': 'a product page '.repeat(50),
  'static/chunks/polyfills-3a4b.js': 'polyfills '.repeat(60),
  'static/build-1/_buildManifest.js': 'every page '.repeat(15),
  'static/build-1/_ssgManifest.js': 'prerendered pages',
};

beforeAll(() => {
  dist = mkdtempSync(path.join(tmpdir(), 'page-weight-'));
  for (const [file, text] of Object.entries(FILES)) {
    mkdirSync(path.dirname(path.join(dist, file)), { recursive: true });
    writeFileSync(path.join(dist, file), text);
  }
  const runtime = [
    'static/chunks/webpack-0a1b.js',
    'static/chunks/framework-2c3d.js',
    'static/chunks/main-4e5f.js',
  ];
  mkdirSync(path.join(dist, 'server'));
  writeFileSync(
    path.join(dist, 'server/pages-manifest.json'),
    JSON.stringify({
      '/_app': 'pages/_app.js',
      '/_error': 'pages/_error.js',
      '/orders/[id]': 'pages/orders/[id].js',
    }),
  );
  writeFileSync(
    path.join(dist, 'build-manifest.json'),
    JSON.stringify({
      polyfillFiles: ['static/chunks/polyfills-3a4b.js'],
      lowPriorityFiles: ['static/build-1/_buildManifest.js', 'static/build-1/_ssgManifest.js'],
      pages: {
        '/_app': [...runtime, 'static/css/app.css', 'static/chunks/pages/_app-6a7b.js'],
        '/_error': [...runtime, 'static/chunks/pages/_error-8c9d.js'],
        '/orders/[id]': [...runtime, 'static/chunks/pages/orders/[id]-1e2f.js'],
      },
    }),
  );
});

afterAll(() => rmSync(dist, { recursive: true, force: true }));

const bytesOf = (files: string[]) => files.reduce((sum, file) => sum + gzip(FILES[file]!), 0);

describe('a page’s first-load JS, in parts', () => {
  it('counts _app’s and the page’s chunks as the app’s own, not another page’s, nor styles or polyfills', () => {
    const { own } = firstLoadParts(dist, '/_error');
    const files = ['static/chunks/pages/_app-6a7b.js', 'static/chunks/pages/_error-8c9d.js'];
    expect(own).toEqual({ files, bytes: bytesOf(files) });
  });

  it('counts React, Next’s client and webpack’s runtime as Next’s runtime', () => {
    const { runtime } = firstLoadParts(dist, '/_error');
    const files = [
      'static/chunks/webpack-0a1b.js',
      'static/chunks/framework-2c3d.js',
      'static/chunks/main-4e5f.js',
    ];
    expect(runtime).toEqual({ files, bytes: bytesOf(files) });
  });

  it('counts the page manifests, which name every page, as the page set’s', () => {
    const { pageSet } = firstLoadParts(dist, '/_error');
    const files = ['static/build-1/_buildManifest.js', 'static/build-1/_ssgManifest.js'];
    expect(pageSet).toEqual({ files, bytes: bytesOf(files) });
  });

  it('adds up to the whole first-load JS', () => {
    const { own, runtime, pageSet } = firstLoadParts(dist, '/_error');
    expect(own.bytes + runtime.bytes + pageSet.bytes).toBe(firstLoadJs(dist, '/_error').bytes);
  });

  it('gives a product page’s own chunk to that page only', () => {
    expect(firstLoadParts(dist, '/orders/[id]').own.files).toEqual([
      'static/chunks/pages/_app-6a7b.js',
      'static/chunks/pages/orders/[id]-1e2f.js',
    ]);
    expect(firstLoadParts(dist, '/_error').own.files).not.toContain(
      'static/chunks/pages/orders/[id]-1e2f.js',
    );
  });
});

describe('the shell’s figure', () => {
  it('tells a build of the shell alone from one with a product’s page beside it', () => {
    expect(holdsOnly(dist, ['/_app', '/_error', '/orders/[id]', '/404'])).toBe(true);
    expect(holdsOnly(dist, ['/_app', '/_error', '/404'])).toBe(false);
  });

  it('is the whole first-load JS in the shell alone', () => {
    const alone = { runtime: 1, pageSet: 2 };
    expect(shellFirstLoad(dist, '/_error', { shellAlone: true, alone })).toBe(
      firstLoadJs(dist, '/_error').bytes,
    );
  });

  it('with a product, is the page’s own files and what the runtime and manifests weigh in the shell alone', () => {
    const alone = { runtime: 1_000, pageSet: 20 };
    expect(shellFirstLoad(dist, '/_error', { shellAlone: false, alone })).toBe(
      firstLoadParts(dist, '/_error').own.bytes + 1_020,
    );
  });
});
