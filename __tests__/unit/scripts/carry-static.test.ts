// The build step that carries earlier builds' files (scripts/carry-static.ts), on build folders
// made in a temporary directory.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { CARRIED_MANIFEST } from '@lib/fleet/carried';
import { carryStatic } from '../../../scripts/carry-static';
import { writeFiles } from '../../support/files';
import { ROOT } from '../../support/paths';

const DAY = 24 * 60 * 60 * 1000;
const NOW = Date.parse('2026-11-25T12:00:00Z');
let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'carry-static-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A build folder as `next build` leaves it: BUILD_ID, static/<id>/_buildManifest.js and `files`. */
function buildFolder(name: string, id: string, files: Record<string, string>, builtDaysAgo = 0): string {
  const dist = path.join(root, name);
  mkdirSync(path.join(dist, 'static', id), { recursive: true });
  writeFileSync(path.join(dist, 'BUILD_ID'), id);
  const manifest = path.join(dist, 'static', id, '_buildManifest.js');
  writeFileSync(manifest, `self.__BUILD_MANIFEST=${JSON.stringify(id)}`);
  const when = new Date(NOW - builtDaysAgo * DAY);
  utimesSync(manifest, when, when);
  writeFiles(path.join(dist, 'static'), files);
  return dist;
}

const read = (dist: string, file: string) => readFileSync(path.join(dist, 'static', file), 'utf8');
const manifest = (dist: string) =>
  JSON.parse(readFileSync(path.join(dist, CARRIED_MANIFEST), 'utf8')) as {
    builds: { id: string; files: string[] }[];
  };

describe('carrying earlier builds’ files into a build', () => {
  it('copies the files this build lacks, never over one of its own, and records every build', () => {
    const old = buildFolder(
      'old',
      'buildOld',
      { 'chunks/a-1.js': 'old a', 'chunks/shared.js': 'old shared' },
      1,
    );
    const dist = buildFolder('new', 'buildNew', {
      'chunks/b-2.js': 'new b',
      'chunks/shared.js': 'new shared',
    });
    const line = carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: `${old}/static` }, NOW);
    expect(read(dist, 'chunks/a-1.js')).toBe('old a');
    expect(read(dist, 'buildOld/_buildManifest.js')).toContain('buildOld');
    expect(read(dist, 'chunks/shared.js')).toBe('new shared');
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['buildNew', 'buildOld']);
    expect(line).toBe('Carried files: 2 from 1 earlier build(s) (buildOld).');
  });

  it('carries on what the previous build carried, pruned to the newest builds within the age', () => {
    const first = buildFolder('first', 'build1', { 'chunks/one.js': '1' }, 20);
    const second = buildFolder('second', 'build2', { 'chunks/two.js': '2' }, 2);
    carryStatic(
      { NEXT_DIST_DIR: second, KEEP_STATIC_FROM: `${first}/static`, KEEP_STATIC_DAYS: '30' },
      NOW - DAY,
    );
    const third = buildFolder('third', 'build3', { 'chunks/three.js': '3' }, 1);
    carryStatic({ NEXT_DIST_DIR: third, KEEP_STATIC_FROM: `${second}/static`, KEEP_STATIC_DAYS: '30' }, NOW);
    const fourth = buildFolder('fourth', 'build4', { 'chunks/four.js': '4' });
    // Builds 3, 2 and 1 are on offer; 1 is 20 days old, past the default 14.
    const line = carryStatic({ NEXT_DIST_DIR: fourth, KEEP_STATIC_FROM: `${third}/static` }, NOW);
    expect(manifest(fourth).builds.map((build) => build.id)).toEqual(['build4', 'build3', 'build2']);
    expect(existsSync(path.join(fourth, 'static/chunks/two.js'))).toBe(true);
    expect(existsSync(path.join(fourth, 'static/chunks/one.js'))).toBe(false);
    expect(line).toBe(
      'Carried files: 4 from 2 earlier build(s) (build3, build2); left out: build1 (older than 14 days).',
    );
    const fifth = buildFolder('fifth', 'build5', {});
    carryStatic({ NEXT_DIST_DIR: fifth, KEEP_STATIC_FROM: `${fourth}/static`, KEEP_STATIC_BUILDS: '1' }, NOW);
    expect(manifest(fifth).builds.map((build) => build.id)).toEqual(['build5', 'build4']);
  });

  it('carries nothing from an empty folder (an image built without PREVIOUS_IMAGE), and records no build for it', () => {
    const empty = path.join(root, 'empty/static');
    mkdirSync(empty, { recursive: true });
    const dist = buildFolder('new', 'buildNew', {});
    expect(carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: empty }, NOW)).toBe(
      'Carried files: 0 from 0 earlier build(s) (none).',
    );
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['buildNew']);
  });

  it('records the build alone when KEEP_STATIC_FROM is unset', () => {
    const dist = buildFolder('new', 'buildNew', { 'chunks/b.js': 'b' });
    expect(carryStatic({ NEXT_DIST_DIR: dist }, NOW)).toBe('Carried files: none (KEEP_STATIC_FROM unset).');
    expect(manifest(dist).builds).toEqual([
      {
        id: 'buildNew',
        builtAt: new Date(NOW).toISOString(),
        files: ['buildNew/_buildManifest.js', 'chunks/b.js'],
      },
    ]);
  });

  it('stops with one line for a folder that does not exist or a bad limit', () => {
    const dist = buildFolder('new', 'buildNew', {});
    expect(() =>
      carryStatic(
        { NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: '/nowhere/static', KEEP_STATIC_BUILDS: 'all' },
        NOW,
      ),
    ).toThrow(
      /^Invalid build configuration: .*KEEP_STATIC_BUILDS.*; KEEP_STATIC_FROM names \/nowhere\/static, which does not exist\.$/,
    );
  });

  it('refuses a carried-builds manifest that names a file outside static/', () => {
    const old = buildFolder('old', 'buildOld', { 'chunks/a.js': 'a' }, 1);
    writeFileSync(
      path.join(old, CARRIED_MANIFEST),
      JSON.stringify({
        builds: [{ id: 'x', builtAt: new Date(NOW).toISOString(), files: ['../../secret'] }],
      }),
    );
    const dist = buildFolder('new', 'buildNew', {});
    expect(() => carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: `${old}/static` }, NOW)).toThrow(
      /is not a list of builds/,
    );
  });
});

describe('carrying between builds with a deploymentId (Next’s skew protection)', () => {
  // Next gives every deploymentId build this one BUILD_ID (node_modules/next/dist/build/index.js).
  const NEXT_ID = 'build-TfctsWXpff2fKS';
  const withDeployment = (dist: string, deploymentId: string) =>
    writeFileSync(
      path.join(dist, 'required-server-files.json'),
      JSON.stringify({ config: { deploymentId } }),
    );

  it('names each build by its deployment id, so an earlier one is carried, not taken for this one', () => {
    const old = buildFolder('old', NEXT_ID, { 'chunks/a-1.js': 'old a' }, 1);
    withDeployment(old, 'deploy-one');
    carryStatic({ NEXT_DIST_DIR: old }, NOW - DAY);
    const dist = buildFolder('new', NEXT_ID, { 'chunks/b-2.js': 'new b' });
    withDeployment(dist, 'deploy-two');
    const line = carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: `${old}/static` }, NOW);
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['deploy-two', 'deploy-one']);
    expect(read(dist, 'chunks/a-1.js')).toBe('old a');
    // Its manifest shares the name of this build's own, which stays.
    expect(read(dist, `${NEXT_ID}/_buildManifest.js`)).toContain(NEXT_ID);
    expect(line).toBe('Carried files: 1 from 1 earlier build(s) (deploy-one).');
  });
});

describe('carrying, read closely', () => {
  it("reads the build's folder and KEEP_STATIC_FROM relative to the app, as next build reads NEXT_DIST_DIR", () => {
    buildFolder('old', 'buildOld', { 'chunks/a-1.js': 'old a' }, 1);
    const dist = buildFolder('new', 'buildNew', {});
    const line = carryStatic({ NEXT_DIST_DIR: 'new', KEEP_STATIC_FROM: 'old/static' }, NOW, root);
    expect(line).toBe('Carried files: 2 from 1 earlier build(s) (buildOld).');
    expect(read(dist, 'chunks/a-1.js')).toBe('old a');
    expect(() => carryStatic({ NEXT_DIST_DIR: 'new', KEEP_STATIC_FROM: 'gone/static' }, NOW, root)).toThrow(
      'Invalid build configuration: KEEP_STATIC_FROM names gone/static, which does not exist.',
    );
  });

  it("names the build by its BUILD_ID without the file's line end", () => {
    const dist = buildFolder('new', 'buildNew', {});
    writeFileSync(path.join(dist, 'BUILD_ID'), 'buildNew\n');
    carryStatic({ NEXT_DIST_DIR: dist }, NOW);
    expect(manifest(dist).builds[0]!.id).toBe('buildNew');
  });

  it('names a folder without a manifest by the folder holding its _buildManifest.js, at the top only', () => {
    const old = path.join(root, 'old/static');
    writeFiles(old, { 'abc/_buildManifest.js': '', 'chunks/a.js': 'a' });
    const dist = buildFolder('new', 'buildNew', {});
    carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: old }, NOW);
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['buildNew', 'abc']);
  });

  it('names one with no _buildManifest.js of its own (a nested one, or a map) by the folder it was read from', () => {
    const old = path.join(root, 'old/static');
    writeFiles(old, { 'media/abc/_buildManifest.js': '', 'abc/_buildManifest.js.map': '' });
    const dist = buildFolder('new', 'buildNew', {});
    carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: old }, NOW);
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['buildNew', `unknown:${old}`]);
  });

  it('records of a carried build only the files it still has', () => {
    const old = buildFolder('old', 'buildOld', { 'chunks/a.js': 'a' }, 1);
    writeFileSync(
      path.join(old, CARRIED_MANIFEST),
      JSON.stringify({
        builds: [
          {
            id: 'buildOld',
            builtAt: new Date(NOW - DAY).toISOString(),
            files: ['chunks/a.js', 'chunks/gone.js'],
          },
        ],
      }),
    );
    const dist = buildFolder('new', 'buildNew', {});
    expect(carryStatic({ NEXT_DIST_DIR: dist, KEEP_STATIC_FROM: `${old}/static` }, NOW)).toBe(
      'Carried files: 1 from 1 earlier build(s) (buildOld).',
    );
    expect(manifest(dist).builds[1]).toEqual(
      expect.objectContaining({ id: 'buildOld', files: ['chunks/a.js'] }),
    );
  });

  it('names each build left out and why', () => {
    const first = buildFolder('first', 'build1', { 'chunks/one.js': '1' }, 3);
    const second = buildFolder('second', 'build2', { 'chunks/two.js': '2' }, 2);
    const third = buildFolder('third', 'build3', { 'chunks/three.js': '3' }, 20);
    const dist = buildFolder('new', 'buildNew', {});
    const line = carryStatic(
      {
        NEXT_DIST_DIR: dist,
        KEEP_STATIC_FROM: `${first}/static,${second}/static,${third}/static`,
        KEEP_STATIC_BUILDS: '1',
      },
      NOW,
    );
    expect(line).toBe(
      'Carried files: 2 from 1 earlier build(s) (build2); left out: build1 (beyond 1 builds), build3 (older than 14 days).',
    );
  });
});

describe('the step as npm run build runs it (node dist/scripts/carry-static.js)', () => {
  const saved = { ...process.env };
  let printed: jest.SpyInstance;
  let said: jest.SpyInstance;
  beforeEach(() => {
    printed = jest.spyOn(console, 'log').mockImplementation(() => {});
    said = jest.spyOn(console, 'error').mockImplementation(() => {});
    // (Jest runs with NODE_ENV=test, which reads .env.test instead: the command runs as a build.)
    Object.assign(process.env, { NODE_ENV: 'production' });
  });
  afterEach(() => {
    // What the .env files set went into process.env, with @next/env's mark that it read them.
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    jest.restoreAllMocks();
  });

  /** runCommand in a fresh copy of the script and of @next/env, which loads a process's .env files once. */
  const run = (root?: string) => {
    let code: number | undefined;
    jest.isolateModules(() => {
      code = jest
        .requireActual<typeof import('../../../scripts/carry-static')>('../../../scripts/carry-static')
        .runCommand(root);
    });
    return code;
  };

  it("reads the app's production .env files as next build does, prints its line, and ends well", () => {
    mkdirSync(path.join(root, 'empty/static'), { recursive: true });
    const dist = buildFolder('new', 'buildNew', {});
    writeFileSync(path.join(root, '.env.production'), 'NEXT_DIST_DIR=new\nKEEP_STATIC_FROM=empty/static\n');
    writeFileSync(path.join(root, '.env.development'), 'NEXT_DIST_DIR=new\nKEEP_STATIC_FROM=gone/static\n');
    expect(run(root)).toBe(0);
    // Its line alone: no note of each file it read.
    expect(printed.mock.calls).toEqual([['Carried files: 0 from 0 earlier build(s) (none).']]);
    expect(said).not.toHaveBeenCalled();
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['buildNew']);
  });

  it('says why it stopped, and fails, for a bad setting', () => {
    buildFolder('new', 'buildNew', {});
    writeFileSync(path.join(root, '.env.production'), 'NEXT_DIST_DIR=new\nKEEP_STATIC_FROM=gone/static\n');
    expect(run(root)).toBe(1);
    expect(said.mock.calls).toEqual([
      ['Invalid build configuration: KEEP_STATIC_FROM names gone/static, which does not exist.'],
    ]);
    expect(printed).not.toHaveBeenCalled();
  });

  it('says which .env file it could not read', () => {
    buildFolder('new', 'buildNew', {});
    // A link to itself: there, but never readable.
    symlinkSync('.env.production.local', path.join(root, '.env.production.local'));
    Object.assign(process.env, { NEXT_DIST_DIR: path.join(root, 'new') });
    expect(run(root)).toBe(0);
    expect(said).toHaveBeenCalledWith(
      'Failed to load env from .env.production.local',
      expect.objectContaining({ code: 'ELOOP' }),
    );
  });

  it('finds the app as many folders above the compiled script as tsconfig.server.json puts it down', () => {
    // Compiled to <outDir>/scripts/carry-static.js; here, as a source, it sits in scripts/.
    const { outDir } = ts.readConfigFile(path.join(ROOT, 'tsconfig.server.json'), ts.sys.readFile).config
      .compilerOptions as { outDir: string };
    const up = path.relative(path.join(ROOT, outDir, 'scripts'), ROOT);
    const app = path.resolve(ROOT, 'scripts', up);
    const dist = buildFolder('new', 'buildNew', {});
    // (No .env file there names anything: NEXT_DIST_DIR is set already, as the Dockerfile may.)
    Object.assign(process.env, { NEXT_DIST_DIR: path.relative(app, dist) });
    expect(run()).toBe(0);
    expect(printed).toHaveBeenCalledWith('Carried files: none (KEEP_STATIC_FROM unset).');
    expect(manifest(dist).builds.map((build) => build.id)).toEqual(['buildNew']);
  });
});
