import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  developmentBundler,
  turbopackInDevelopment,
  turbopackRoot,
  webpackInDevelopmentLine,
} from '@lib/config/development-bundler';

const NONE = { reporting: false, fixtures: false, askedForWebpack: false };

describe('developmentBundler: what `npm run dev` compiles with', () => {
  it('is Turbopack, as bare `next dev`, when the session needs nothing webpack alone gives', () => {
    expect(developmentBundler(NONE)).toEqual({ name: 'turbopack' });
  });

  it('is webpack with reports from development, whose browser SDK files are webpack entries', () => {
    expect(developmentBundler({ ...NONE, reporting: true })).toEqual({
      name: 'webpack',
      reason: expect.stringMatching(/^SENTRY_IN_DEVELOPMENT=1 .*webpack entries/),
    });
  });

  it("is webpack with the fixture pages, whose module replacement is webpack's", () => {
    expect(developmentBundler({ ...NONE, fixtures: true })).toEqual({
      name: 'webpack',
      reason: expect.stringMatching(/^APP_SHELL_FIXTURES=1: .*webpack plugin/),
    });
  });

  it('is webpack when asked for with --webpack, whatever else the session needs', () => {
    expect(developmentBundler({ reporting: true, fixtures: true, askedForWebpack: true })).toEqual({
      name: 'webpack',
      reason: 'asked for with --webpack',
    });
  });

  it('names reports as the reason when both reports and fixtures need webpack', () => {
    const chosen = developmentBundler({ ...NONE, reporting: true, fixtures: true });
    expect(chosen.name === 'webpack' && chosen.reason).toMatch(/^SENTRY_IN_DEVELOPMENT=1/);
  });

  it('says in one line which bundler, why, and where to read more', () => {
    const line = webpackInDevelopmentLine('asked for with --webpack');
    expect(line).toBe(
      'npm run dev compiles with webpack, not Turbopack: asked for with --webpack (docs/development.md).',
    );
    expect(line).not.toContain('\n');
  });
});

describe('turbopackRoot: the folder Turbopack may compile files under', () => {
  let base: string;
  beforeEach(() => {
    // Real paths: the temporary folder may itself be reached through a symlink (macOS's /tmp).
    base = realpathSync(mkdtempSync(path.join(tmpdir(), 'turbopack-root-')));
  });
  afterEach(() => rmSync(base, { recursive: true, force: true }));

  it('is left to Next where node_modules is the project’s own folder (a clean checkout)', () => {
    mkdirSync(path.join(base, 'app/node_modules'), { recursive: true });
    expect(turbopackRoot(path.join(base, 'app'))).toBeUndefined();
  });

  it('is left to Next where there is no node_modules (a workspace installed above it)', () => {
    mkdirSync(path.join(base, 'app'), { recursive: true });
    expect(turbopackRoot(path.join(base, 'app'))).toBeUndefined();
  });

  it('is left to Next where node_modules links to a folder inside the project', () => {
    mkdirSync(path.join(base, 'app/vendor/modules'), { recursive: true });
    symlinkSync(path.join(base, 'app/vendor/modules'), path.join(base, 'app/node_modules'), 'dir');
    expect(turbopackRoot(path.join(base, 'app'))).toBeUndefined();
  });

  it('holds both the project and the install a linked node_modules points to (a worktree)', () => {
    mkdirSync(path.join(base, 'main/node_modules'), { recursive: true });
    mkdirSync(path.join(base, 'worktrees/feature'), { recursive: true });
    symlinkSync(
      path.join(base, 'main/node_modules'),
      path.join(base, 'worktrees/feature/node_modules'),
      'dir',
    );
    expect(turbopackRoot(path.join(base, 'worktrees/feature'))).toBe(base);
  });

  it('follows a chain of links to where the install really is (a copy of a worktree)', () => {
    mkdirSync(path.join(base, 'main/node_modules'), { recursive: true });
    mkdirSync(path.join(base, 'worktree'));
    mkdirSync(path.join(base, 'elsewhere/copy'), { recursive: true });
    symlinkSync(path.join(base, 'main/node_modules'), path.join(base, 'worktree/node_modules'), 'dir');
    symlinkSync(
      path.join(base, 'worktree/node_modules'),
      path.join(base, 'elsewhere/copy/node_modules'),
      'dir',
    );
    expect(turbopackRoot(path.join(base, 'elsewhere/copy'))).toBe(base);
  });

  it('is the project’s parent where the install sits beside the project', () => {
    mkdirSync(path.join(base, 'modules'));
    mkdirSync(path.join(base, 'app'));
    symlinkSync(path.join(base, 'modules'), path.join(base, 'app/node_modules'), 'dir');
    expect(turbopackRoot(path.join(base, 'app'))).toBe(base);
  });

  it('is the project’s parent where node_modules links to that very folder', () => {
    mkdirSync(path.join(base, 'app'));
    symlinkSync(base, path.join(base, 'app/node_modules'), 'dir');
    expect(turbopackRoot(path.join(base, 'app'))).toBe(base);
  });

  it('tells a sibling whose name starts with the project’s from a folder inside it', () => {
    mkdirSync(path.join(base, 'app-modules'));
    mkdirSync(path.join(base, 'app'));
    symlinkSync(path.join(base, 'app-modules'), path.join(base, 'app/node_modules'), 'dir');
    expect(turbopackRoot(path.join(base, 'app'))).toBe(base);
  });

  it('tells an install in a folder named like `..x` inside the project from one above it', () => {
    const realpath = (file: string) => (file === '/p/app/node_modules' ? '/p/app/..x/node_modules' : file);
    expect(turbopackRoot('/p/app', realpath)).toBeUndefined();
  });

  it('is the file system’s root where the two share nothing else', () => {
    const realpath = (file: string) => (file === '/tmp/copy/node_modules' ? '/work/main/node_modules' : file);
    expect(turbopackRoot('/tmp/copy', realpath)).toBe('/');
  });

  it('is left to Next where node_modules is a dangling link, as where there is none', () => {
    mkdirSync(path.join(base, 'app'));
    symlinkSync(path.join(base, 'gone'), path.join(base, 'app/node_modules'), 'dir');
    expect(turbopackRoot(path.join(base, 'app'))).toBeUndefined();
  });
});

describe('turbopackInDevelopment: what next.config.ts adds under Turbopack', () => {
  it('defines the reporter’s two file addresses as empty: no SDK file to load without reports', () => {
    // As values: Next serializes compiler.define itself (a '""' here would reach pages as a path).
    expect(turbopackInDevelopment('/nowhere/app').compiler.define).toEqual({
      'process.env.APP_SENTRY_SDK_URL': '',
      'process.env.APP_SENTRY_TRACING_URL': '',
    });
  });

  it('sets no root where Next’s own holds the install', () => {
    expect(turbopackInDevelopment('/nowhere/app').turbopack).toEqual({});
  });

  it('sets the root that holds a linked install', () => {
    const base = realpathSync(mkdtempSync(path.join(tmpdir(), 'turbopack-root-')));
    try {
      mkdirSync(path.join(base, 'modules'));
      mkdirSync(path.join(base, 'app'));
      symlinkSync(path.join(base, 'modules'), path.join(base, 'app/node_modules'), 'dir');
      expect(turbopackInDevelopment(path.join(base, 'app')).turbopack).toEqual({ root: base });
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
