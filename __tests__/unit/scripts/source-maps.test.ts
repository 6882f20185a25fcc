// `npm run build`'s source-map step and `npm run sourcemaps:upload`, on a made-up build folder with
// a stand-in for sentry-cli. The e2e tests (source-maps, source-map-upload) run the real ones on a
// real build; these hold each rule of the step where StrykerJS can see them.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  afterBuild,
  type Build,
  debugIdFor,
  linkBrowserMaps,
  MAPS_FOLDER,
  moveMaps,
  registerInSdk,
  sentryCliIn,
  syncStandalone,
  uploadCommand,
  uploadIfConfigured,
} from '../../../scripts/source-maps';
import { folderWith, writeFiles } from '../../support/files';

const MAP = JSON.stringify({ version: 3, sources: ['a.ts'], mappings: 'AAAA' });

/** An app at a new root whose build folder holds `files` (path in the build → content). */
function appWith(files: Record<string, string>, dist = '.next'): Build {
  const root = folderWith('source-maps-');
  writeFiles(path.join(root, dist), files);
  return { root, dist: path.join(root, dist) };
}

const read = (build: Build, file: string) => readFileSync(path.join(build.dist, file), 'utf8');
const has = (build: Build, file: string) => existsSync(path.join(build.dist, file));

/** A stand-in for sentry-cli that records what it was asked. */
function fakeCli() {
  const calls: string[][] = [];
  const cli = (args: string[]) => {
    calls.push(args);
    return '';
  };
  return { cli, calls };
}

/** The release `next build` wrote into the build's required-server-files.json. */
const release = (build: Build, name: string) =>
  writeFileSync(
    path.join(build.dist, 'required-server-files.json'),
    JSON.stringify({ config: { env: { APP_RELEASE: name } } }),
  );

const CREDENTIALS = { SENTRY_AUTH_TOKEN: 'sntrys_x', SENTRY_ORG: 'acme', SENTRY_PROJECT: 'shell' };

describe('debugIdFor', () => {
  it('is a version-4-shaped UUID from the bytes, the same for the same bytes and another for others', () => {
    const id = debugIdFor(Buffer.from('console.log(1)'));
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(debugIdFor(Buffer.from('console.log(1)'))).toBe(id);
    expect(debugIdFor(Buffer.from('console.log(2)'))).not.toBe(id);
    // The digest's own characters, in order, but for the version and the variant.
    expect(debugIdFor(Buffer.from(''))).toBe('e3b0c442-98fc-4c14-9afb-f4c8996fb924');
  });
});

describe('linkBrowserMaps', () => {
  it("writes each bundle's debug ID into its map, in both spellings, and lists them by file", () => {
    const build = appWith({
      'static/chunks/main-1.js': 'main()',
      'static/chunks/main-1.js.map': MAP,
      'static/chunks/pages/index-2.js': 'index()',
      'static/chunks/pages/index-2.js.map': MAP,
      'static/chunks/gone.js.map': MAP,
      'static/css/app.css.map': MAP,
    });
    const ids = linkBrowserMaps(build.dist);
    const main = debugIdFor(Buffer.from('main()'));
    expect(ids).toEqual({
      [path.join('chunks/main-1.js')]: main,
      [path.join('chunks/pages/index-2.js')]: debugIdFor(Buffer.from('index()')),
    });
    expect(JSON.parse(read(build, 'static/chunks/main-1.js.map'))).toEqual({
      ...JSON.parse(MAP),
      debug_id: main,
      debugId: main,
    });
    // A map whose bundle is gone, and a stylesheet's, are left as they were.
    expect(read(build, 'static/chunks/gone.js.map')).toBe(MAP);
    expect(read(build, 'static/css/app.css.map')).toBe(MAP);
  });

  it('finds nothing in a build with no browser files', () => {
    expect(linkBrowserMaps(appWith({ 'server/x.js': '' }).dist)).toEqual({});
  });
});

describe('registerInSdk', () => {
  it('appends to the SDK file the registration the SDK reads, by URL path', () => {
    const build = appWith({ 'static/chunks/reporting-abc.js': 'sdk()', 'static/chunks/main-1.js': 'main()' });
    expect(registerInSdk(build.dist, { 'chunks/main-1.js': 'id-1' })).toBe(true);
    const sdk = read(build, 'static/chunks/reporting-abc.js');
    expect(sdk.startsWith('sdk()\n;(function(){try{var g=globalThis,o=location.origin,')).toBe(true);
    expect(sdk).toContain('m={"/_next/static/chunks/main-1.js":"id-1"}');
    // Run as the browser runs it: the SDK finds each file's ID by the stack of a frame in it.
    const global: Record<string, unknown> = {};
    new Function('globalThis', 'location', sdk.slice('sdk()'.length))(global, {
      origin: 'https://shop.example',
    });
    expect(global._sentryDebugIds).toEqual({
      'Error\n    at debugId (https://shop.example/_next/static/chunks/main-1.js:1:1)': 'id-1',
    });
    expect(read(build, 'static/chunks/main-1.js')).toBe('main()');
  });

  it.each([
    // Next's resolved config of a build with each setting (its required-server-files.json).
    [{ assetPrefix: '/shop', basePath: '/shop' }, 'https://shop.example/shop/_next/static/chunks/main-1.js'],
    [{ assetPrefix: '/assets', basePath: '' }, 'https://shop.example/assets/_next/static/chunks/main-1.js'],
    [{ deploymentId: 'deploy-one' }, 'https://shop.example/_next/static/chunks/main-1.js?dpl=deploy-one'],
    [
      { assetPrefix: 'https://cdn.example.com/app' },
      'https://cdn.example.com/app/_next/static/chunks/main-1.js',
    ],
  ])('registers each file under the URL a page of a build with %o asks for it', (assets, url) => {
    const build = appWith({ 'static/chunks/reporting-abc.js': 'sdk()', 'static/chunks/main-1.js': 'main()' });
    expect(registerInSdk(build.dist, { 'chunks/main-1.js': 'id-1' }, assets)).toBe(true);
    const global: Record<string, unknown> = {};
    new Function(
      'globalThis',
      'location',
      read(build, 'static/chunks/reporting-abc.js').slice('sdk()'.length),
    )(global, { origin: 'https://shop.example' });
    expect(global._sentryDebugIds).toEqual({ [`Error\n    at debugId (${url}:1:1)`]: 'id-1' });
  });

  it('says there is none in a build without reporting, and writes nothing', () => {
    expect(registerInSdk(appWith({ 'static/chunks/main-1.js': 'main()' }).dist, {})).toBe(false);
    expect(registerInSdk(appWith({ 'server/x.js': '' }).dist, {})).toBe(false);
    const nested = appWith({ 'static/chunks/pages/reporting-x.js': 'not the sdk' });
    expect(registerInSdk(nested.dist, {})).toBe(false);
    expect(read(nested, 'static/chunks/pages/reporting-x.js')).toBe('not the sdk');
  });
});

describe('moveMaps', () => {
  it('leaves no map where the server serves files, and keeps each with a copy of its bundle', () => {
    const build = appWith({
      'static/chunks/main-1.js': 'main()',
      'static/chunks/main-1.js.map': MAP,
      'static/css/app.css': 'a{}',
      'static/css/app.css.map': MAP,
      'static/chunks/gone.js.map': MAP,
      'server/pages/x.js': 'x()',
      'server/pages/x.js.map': MAP,
      [`${MAPS_FOLDER}/client/stale.js.map`]: MAP,
    });
    expect(moveMaps(build.dist, { [path.join('chunks/main-1.js')]: 'id-1' })).toBe(4);
    for (const served of ['static/chunks/main-1.js.map', 'static/css/app.css.map', 'server/pages/x.js.map'])
      expect(has(build, served)).toBe(false);
    expect(read(build, 'sourcemaps/client/chunks/main-1.js.map')).toBe(MAP);
    // The browser bundle's copy names its ID, as sentry-cli reads it; the served bundle is untouched.
    expect(read(build, 'sourcemaps/client/chunks/main-1.js')).toBe('main()\n//# debugId=id-1\n');
    expect(read(build, 'static/chunks/main-1.js')).toBe('main()');
    expect(read(build, 'sourcemaps/server/pages/x.js')).toBe('x()');
    expect(read(build, 'sourcemaps/client/css/app.css.map')).toBe(MAP);
    expect(has(build, 'sourcemaps/client/css/app.css')).toBe(false);
    expect(has(build, 'sourcemaps/client/chunks/gone.js')).toBe(false);
    // What an earlier build kept is gone: the folder is this build's.
    expect(has(build, 'sourcemaps/client/stale.js.map')).toBe(false);
  });
});

describe('syncStandalone', () => {
  it('gives the standalone copy the injected server bundles it has, and none of the maps', () => {
    const build = appWith({
      'server/pages/x.js': 'x() // injected',
      'server/pages/y.js': 'y() // injected',
      'standalone/.next/server/pages/x.js': 'x()',
      'standalone/.next/server/pages/x.js.map': MAP,
    });
    syncStandalone(build);
    expect(read(build, 'standalone/.next/server/pages/x.js')).toBe('x() // injected');
    expect(has(build, 'standalone/.next/server/pages/x.js.map')).toBe(false);
    expect(has(build, 'standalone/.next/server/pages/y.js')).toBe(false);
  });

  it('does nothing without standalone output', () => {
    const build = appWith({ 'server/pages/x.js': 'x()' });
    syncStandalone(build);
    expect(has(build, 'standalone')).toBe(false);
  });
});

describe('uploadIfConfigured', () => {
  it('uploads the kept maps under the build’s release, finalises it, and removes them', () => {
    const build = appWith({ 'sourcemaps/client/a.js.map': MAP });
    release(build, 'shell@1.2.3');
    const { cli, calls } = fakeCli();
    expect(uploadIfConfigured(build, cli, CREDENTIALS)).toBe(true);
    expect(calls).toEqual([
      ['releases', 'new', 'shell@1.2.3'],
      ['sourcemaps', 'upload', '--release', 'shell@1.2.3', path.join(build.dist, 'sourcemaps')],
      ['releases', 'finalize', 'shell@1.2.3'],
    ]);
    expect(has(build, 'sourcemaps')).toBe(false);
  });

  it.each(['SENTRY_AUTH_TOKEN', 'SENTRY_ORG', 'SENTRY_PROJECT'])('does nothing without %s', (name) => {
    const build = appWith({ 'sourcemaps/client/a.js.map': MAP });
    const { cli, calls } = fakeCli();
    expect(uploadIfConfigured(build, cli, { ...CREDENTIALS, [name]: '' })).toBe(false);
    expect(calls).toEqual([]);
    expect(has(build, 'sourcemaps')).toBe(true);
  });

  it('says to build first when there are no maps, or no release', () => {
    const { cli, calls } = fakeCli();
    const empty = appWith({ 'server/x.js': '' });
    expect(() => uploadIfConfigured(empty, cli, CREDENTIALS)).toThrow(
      'No source maps in .next/sourcemaps: run npm run build first.',
    );
    const unnamed = appWith({ 'sourcemaps/client/a.js.map': MAP });
    expect(() => uploadIfConfigured(unnamed, cli, CREDENTIALS)).toThrow(
      'The build names no release (required-server-files.json): run npm run build first.',
    );
    release(unnamed, '');
    expect(() => uploadIfConfigured(unnamed, cli, CREDENTIALS)).toThrow('names no release');
    expect(calls).toEqual([]);
  });
});

describe('the build step', () => {
  const files = {
    'static/chunks/reporting-abc.js': 'sdk()',
    'static/chunks/main-1.js': 'main()',
    'static/chunks/main-1.js.map': MAP,
    'server/pages/x.js': 'x()',
    'server/pages/x.js.map': MAP,
  };

  it('injects the server bundles, links and keeps the maps, and says where and how to upload', () => {
    const build = appWith(files);
    const { cli, calls } = fakeCli();
    expect(afterBuild(build, cli, {})).toBe(
      'Source maps: 2 kept in .next/sourcemaps/ (never served). Upload them with `npm run ' +
        'sourcemaps:upload` and SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT set.',
    );
    expect(calls).toEqual([['sourcemaps', 'inject', path.join(build.dist, 'server')]]);
    expect(read(build, 'static/chunks/reporting-abc.js')).toContain('/_next/static/chunks/main-1.js');
    expect(read(build, 'sourcemaps/client/chunks/main-1.js')).toContain('//# debugId=');
  });

  it('says when the build has no SDK file to register the IDs in, and injects nothing without server output', () => {
    const build = appWith({ 'static/chunks/main-1.js': 'main()', 'static/chunks/main-1.js.map': MAP });
    const { cli, calls } = fakeCli();
    expect(afterBuild(build, cli, {})).toContain('(never served; no SDK file in this build)');
    expect(calls).toEqual([]);
  });

  it('uploads and removes them with credentials', () => {
    const build = appWith(files);
    release(build, 'r1');
    const { cli, calls } = fakeCli();
    expect(afterBuild(build, cli, CREDENTIALS)).toBe(
      'Source maps: 2 uploaded to Sentry and removed from the build.',
    );
    expect(calls.map((args) => args.slice(0, 2).join(' '))).toEqual([
      'sourcemaps inject',
      'releases new',
      'sourcemaps upload',
      'releases finalize',
    ]);
    expect(has(build, 'sourcemaps')).toBe(false);
  });
});

describe('npm run sourcemaps:upload', () => {
  it('asks for the credentials when they are not set, and fails', () => {
    const { cli } = fakeCli();
    expect(uploadCommand(appWith({}), cli, {})).toEqual({
      message:
        'Set SENTRY_AUTH_TOKEN, SENTRY_ORG and SENTRY_PROJECT (and SENTRY_URL for self-hosted Sentry).',
      code: 1,
    });
  });

  it('says it uploaded, and succeeds', () => {
    const build = appWith({ 'sourcemaps/client/a.js.map': MAP });
    release(build, 'r1');
    expect(uploadCommand(build, fakeCli().cli, CREDENTIALS)).toEqual({
      message: 'Source maps uploaded to Sentry and removed from the build.',
      code: 0,
    });
  });
});

describe('buildAt', () => {
  const saved = process.env.NEXT_DIST_DIR;
  afterEach(() => {
    if (saved === undefined) delete process.env.NEXT_DIST_DIR;
    else process.env.NEXT_DIST_DIR = saved;
  });

  /** buildAt in a fresh copy of the script and of @next/env, which loads a process's .env files once. */
  const freshBuildAt = (root: string) => {
    // What an earlier load left: the value, and @next/env's mark that the files were read.
    delete process.env.NEXT_DIST_DIR;
    delete process.env.__NEXT_PROCESSED_ENV;
    let build: Build | undefined;
    jest.isolateModules(() => {
      build = jest
        .requireActual<typeof import('../../../scripts/source-maps')>('../../../scripts/source-maps')
        .buildAt(root);
    });
    return build;
  };

  it("finds the build folder NEXT_DIST_DIR names, in the app's .env files as next build does", () => {
    delete process.env.NEXT_DIST_DIR;
    const root = mkdtempSync(path.join(tmpdir(), 'source-maps-root-'));
    expect(freshBuildAt(root)).toEqual({ root, dist: path.join(root, '.next') });
    delete process.env.NEXT_DIST_DIR;
    const other = mkdtempSync(path.join(tmpdir(), 'source-maps-root-'));
    writeFileSync(path.join(other, '.env'), 'NEXT_DIST_DIR=.next-prod\n');
    expect(freshBuildAt(other)).toEqual({ root: other, dist: path.join(other, '.next-prod') });
    // As `next build` reads them: the production files, not the development ones.
    delete process.env.NEXT_DIST_DIR;
    const third = mkdtempSync(path.join(tmpdir(), 'source-maps-root-'));
    writeFileSync(path.join(third, '.env.production'), 'NEXT_DIST_DIR=.next-production\n');
    writeFileSync(path.join(third, '.env.development'), 'NEXT_DIST_DIR=.next-development\n');
    // (Jest runs with NODE_ENV=test, which reads .env.test instead: the command runs as a build.)
    const nodeEnv = process.env.NODE_ENV;
    Object.assign(process.env, { NODE_ENV: 'production' });
    try {
      expect(freshBuildAt(third)).toEqual({ root: third, dist: path.join(third, '.next-production') });
    } finally {
      Object.assign(process.env, { NODE_ENV: nodeEnv });
    }
  });
});

describe('sentryCliIn', () => {
  it("runs the sentry-cli the app installs (from the registry's binary package), and returns what it printed", () => {
    expect(sentryCliIn(process.cwd())(['--version'])).toMatch(/^sentry-cli \d+\.\d+\.\d+\n$/);
  });
});
