// What the server reads from the app's folders at start: public/'s files, and the build's config.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { adoptBuildValues, nextCompresses, servedPath, usesShellPageCache } from '@lib/server/build-output';
import { readPublicFiles } from '@lib/server/public-files';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-files-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('public/', () => {
  it('is every file as a path, up to the limit', () => {
    mkdirSync(path.join(root, 'public', 'icons'), { recursive: true });
    for (const file of ['robots.txt', 'favicon.ico', 'icons/a.png'])
      writeFileSync(path.join(root, 'public', file), 'x');
    expect([...readPublicFiles(root, Infinity)].sort()).toEqual([
      '/favicon.ico',
      '/icons/a.png',
      '/robots.txt',
    ]);
    expect(readPublicFiles(root, 2).size).toBe(2);
    expect(readPublicFiles(root, 3).size).toBe(3);
  });

  it('is nothing without the folder', () => {
    expect(readPublicFiles(root).size).toBe(0);
  });
});

describe("the build's config", () => {
  const built = (config: object) => {
    mkdirSync(path.join(root, '.next'), { recursive: true });
    writeFileSync(path.join(root, '.next', 'required-server-files.json'), JSON.stringify({ config }));
  };
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it("says whether Next compresses: yes unless the build's config says false", () => {
    expect(nextCompresses(root, '.next')).toBe(true);
    built({ compress: true });
    expect(nextCompresses(root, '.next')).toBe(true);
    built({ compress: false });
    expect(nextCompresses(root, '.next')).toBe(false);
  });

  it('says where Next serves a route file: below the base path, with the trailing slash the build adds', () => {
    expect(servedPath(root, '.next')('/api/health')).toBe('/api/health');
    built({ basePath: '/shop', trailingSlash: true });
    expect(servedPath(root, '.next')('/api/health')).toBe('/shop/api/health/');
    built({ basePath: '', trailingSlash: false });
    expect(servedPath(root, '.next')('/api/health')).toBe('/api/health');
    built({});
    expect(servedPath(root, '.next')('/api/health')).toBe('/api/health');
  });

  it('gives the process only the APP_* text values the build made, and Next the config', () => {
    built({ env: { APP_RELEASE: 'r1', APP_NUMBER: 7, OTHER: 'no', NEXT_PUBLIC_X: 'no' } });
    delete process.env.APP_RELEASE;
    delete process.env.OTHER;
    adoptBuildValues({ root, dev: false, distDir: '.next' });
    expect(process.env.APP_RELEASE).toBe('r1');
    expect(process.env.APP_NUMBER).toBeUndefined();
    expect(process.env.OTHER).toBeUndefined();
    expect(process.env.NEXT_PUBLIC_X).toBeUndefined();
    expect(JSON.parse(process.env.__NEXT_PRIVATE_STANDALONE_CONFIG!)).toEqual({
      env: { APP_RELEASE: 'r1', APP_NUMBER: 7, OTHER: 'no', NEXT_PUBLIC_X: 'no' },
    });
  });
});

describe("the build's page cache", () => {
  it("is the shell's where the built config names no handler (the shell's next.config names none)", () => {
    expect(usesShellPageCache({})).toBe(true);
    expect(usesShellPageCache({ basePath: '/shop' })).toBe(true);
  });

  it("is the product's where it named a handler of its own, wherever that lies", () => {
    expect(usesShellPageCache({ cacheHandler: '../cache-handler.js' })).toBe(false);
    expect(usesShellPageCache({ cacheHandler: '/app/dist/lib/page-cache/handler.js' })).toBe(false);
    expect(usesShellPageCache({ cacheHandler: '' })).toBe(false);
  });
});
