import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { reportingFileRedirect } from '@lib/server/reporting-file';

let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'reporting-file-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/**
 * A build folder with this build id, and its reporting file unless `withFile` is false (and its
 * tracing file with `withTracing`).
 */
function buildFolder(buildId: string, withFile = true, withTracing = false) {
  mkdirSync(path.join(root, '.next/static/chunks'), { recursive: true });
  writeFileSync(path.join(root, '.next/BUILD_ID'), `${buildId}\n`);
  if (withFile) writeFileSync(path.join(root, `.next/static/chunks/reporting-${buildId}.js`), '');
  if (withTracing) writeFileSync(path.join(root, `.next/static/chunks/reporting-tracing-${buildId}.js`), '');
}

describe('a request for another build’s reporting file', () => {
  it.each([
    [{ basePath: '/shop', assetPrefix: '/shop' }, '/shop/_next/static/chunks/reporting-new_Build-1.js'],
    [{ assetPrefix: '/assets' }, '/assets/_next/static/chunks/reporting-new_Build-1.js'],
    [{ deploymentId: 'deploy-one' }, '/_next/static/chunks/reporting-new_Build-1.js?dpl=deploy-one'],
  ])('of a build with %o: asked and sent as Next asks for build files', (config, target) => {
    buildFolder('new_Build-1');
    writeFileSync(path.join(root, '.next/required-server-files.json'), JSON.stringify({ config }));
    const redirect = reportingFileRedirect(root, '.next')!;
    const asked = target.replace('new_Build-1', 'oldBuild_2').split('?')[0]!;
    expect(redirect(asked)).toBe(target);
    // This build's own file, under the same prefix, is Next's to serve.
    expect(redirect(target.split('?')[0]!)).toBeNull();
  });

  it('is sent to this build’s file', () => {
    buildFolder('new_Build-1');
    const redirect = reportingFileRedirect(root, '.next')!;
    expect(redirect('/_next/static/chunks/reporting-oldBuild_2.js')).toBe(
      '/_next/static/chunks/reporting-new_Build-1.js',
    );
  });

  it('is sent to this build’s file of the same kind: tracing for a sampled page, when this build traces', () => {
    buildFolder('new_Build-1', true, true);
    const redirect = reportingFileRedirect(root, '.next')!;
    expect(redirect('/_next/static/chunks/reporting-tracing-oldBuild_2.js')).toBe(
      '/_next/static/chunks/reporting-tracing-new_Build-1.js',
    );
    expect(redirect('/_next/static/chunks/reporting-oldBuild_2.js')).toBe(
      '/_next/static/chunks/reporting-new_Build-1.js',
    );
    expect(redirect('/_next/static/chunks/reporting-tracing-new_Build-1.js')).toBeNull();
    expect(redirect('/_next/static/chunks/reporting-new_Build-1.js')).toBeNull();
  });

  it('sends a sampled page to the plain file when this build traces nothing', () => {
    buildFolder('new_Build-1');
    const redirect = reportingFileRedirect(root, '.next')!;
    expect(redirect('/_next/static/chunks/reporting-tracing-oldBuild_2.js')).toBe(
      '/_next/static/chunks/reporting-new_Build-1.js',
    );
  });

  it('leaves this build’s own file, and every other path, to Next', () => {
    buildFolder('new_Build-1');
    const redirect = reportingFileRedirect(root, '.next')!;
    for (const pathname of [
      '/_next/static/chunks/reporting-new_Build-1.js',
      '/_next/static/chunks/reporting-old.js.map',
      '/_next/static/chunks/reporting-../../x.js',
      '/_next/static/chunks/reporting-.js',
      `/_next/static/chunks/reporting-${'a'.repeat(65)}.js`,
      '/_next/static/chunks/main-abc.js',
      '/reporting-old.js',
    ])
      expect(redirect(pathname)).toBeNull();
  });

  it('is not moved by a build without a reporting file (no DSN), nor without a build', () => {
    buildFolder('plain', false);
    expect(reportingFileRedirect(root, '.next')).toBeNull();
    expect(reportingFileRedirect(root, '.missing')).toBeNull();
  });
});
