import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildNamespace, channelName, storeKey } from '@lib/page-cache/namespace';

let distDir: string;
let serverDistDir: string;

beforeEach(() => {
  distDir = mkdtempSync(path.join(tmpdir(), 'page-cache-namespace-'));
  serverDistDir = path.join(distDir, 'server');
  mkdirSync(serverDistDir);
});

afterEach(() => rmSync(distDir, { recursive: true, force: true }));

const requiredServerFiles = (config: unknown) =>
  writeFileSync(path.join(distDir, 'required-server-files.json'), JSON.stringify({ version: 1, config }));

describe('the build a page cache entry belongs to', () => {
  it("is Next's build id, read beside the server folder, without its line end", () => {
    writeFileSync(path.join(distDir, 'BUILD_ID'), 'aBc123_build\n');
    requiredServerFiles({ distDir: '.next' });
    expect(buildNamespace(serverDistDir)).toBe('aBc123_build');
  });

  it('is the build id when there is no required-server-files.json', () => {
    writeFileSync(path.join(distDir, 'BUILD_ID'), 'only-the-id');
    expect(buildNamespace(serverDistDir)).toBe('only-the-id');
  });

  it('is the build id when required-server-files.json is not JSON', () => {
    writeFileSync(path.join(distDir, 'BUILD_ID'), 'only-the-id');
    writeFileSync(path.join(distDir, 'required-server-files.json'), '{ "config": ');
    expect(buildNamespace(serverDistDir)).toBe('only-the-id');
  });

  it("is the build's deploymentId, marked as one, where the build sets it", () => {
    writeFileSync(path.join(distDir, 'BUILD_ID'), 'same-for-every-build');
    requiredServerFiles({ deploymentId: 'release-42' });
    expect(buildNamespace(serverDistDir)).toBe('dpl-release-42');
  });

  it('is the build id when deploymentId is empty or not text', () => {
    writeFileSync(path.join(distDir, 'BUILD_ID'), 'the-id');
    requiredServerFiles({ deploymentId: '' });
    expect(buildNamespace(serverDistDir)).toBe('the-id');
    requiredServerFiles({ deploymentId: 42 });
    expect(buildNamespace(serverDistDir)).toBe('the-id');
  });

  it('cannot be named without a build id', () => {
    expect(() => buildNamespace(serverDistDir)).toThrow(/BUILD_ID/);
  });
});

describe("the store's names for a build", () => {
  it("keep Next's cache key whole after the shell's prefix and the build", () => {
    expect(storeKey('dpl-release-42', '/products/shoe:blue')).toBe(
      'app-shell:page:dpl-release-42:/products/shoe:blue',
    );
  });

  it('give each build its own keys and its own channel', () => {
    expect(storeKey('build-a', '/index')).not.toBe(storeKey('build-b', '/index'));
    expect(channelName('build-a')).toBe('app-shell:page:build-a:written');
    expect(channelName('build-b')).toBe('app-shell:page:build-b:written');
  });
});
