// The small command files: `npm start`'s, the browser tests' Chromium, and the build's loader for
// the tracing file. Each is run for real elsewhere (npm-start.test.ts, every browser test, every
// build); here each rule is held where StrykerJS can see it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../../support/paths';
// Imported, not only required below: Jest's related-test search, which StrykerJS relies on to pick
// the tests for a mutant, follows imports.
import * as chromiumAtImport from '../../../scripts/lib/chromium';
import { start } from '../../../scripts/start';
import sentryTracingFlag from '../../../scripts/webpack/sentry-tracing-flag';

describe('npm start (scripts/start.js)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('says to build first when there is no compiled server, and fails', () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    expect(start(path.join(tmpdir(), 'no-such-build', 'start.js'))).toBe(1);
    expect(stderr).toHaveBeenCalledWith(
      'No production build here yet: run `npm run build` first, then `npm start`.\n',
    );
  });

  it('starts the compiled server in production mode', () => {
    const server = path.join(mkdtempSync(path.join(tmpdir(), 'npm-start-')), 'start.js');
    writeFileSync(server, 'module.exports.runServer = (options) => { globalThis.__startedWith = options; };');
    expect(start(server)).toBe(0);
    expect((globalThis as Record<string, unknown>).__startedWith).toEqual({ dev: false });
  });

  it('starts dist/lib/server/start.js, which npm run build compiles, by default', () => {
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const asked: string[] = [];
    jest.isolateModules(() => {
      jest.doMock('node:fs', () => ({
        existsSync: (file: string) => {
          asked.push(file);
          return false;
        },
      }));
      const fresh = jest.requireActual<typeof import('../../../scripts/start')>('../../../scripts/start');
      expect(fresh.start()).toBe(1);
    });
    jest.dontMock('node:fs');
    expect(asked).toEqual([path.join(ROOT, 'dist/lib/server/start.js')]);
  });
});

describe("the browser tests' Chromium (scripts/lib/chromium.js)", () => {
  const load = () => {
    let chromium: { CHROMIUM_PATH: string; CHROMIUM_ARGS: string[] } | undefined;
    jest.isolateModules(() => {
      chromium = jest.requireActual('../../../scripts/lib/chromium');
    });
    return chromium!;
  };
  const saved = process.env.CHROMIUM_PATH;
  afterEach(() => {
    if (saved === undefined) delete process.env.CHROMIUM_PATH;
    else process.env.CHROMIUM_PATH = saved;
  });

  it("is Debian's, headless, reaching for no host of Google's, unless CHROMIUM_PATH names another", () => {
    delete process.env.CHROMIUM_PATH;
    expect(load()).toEqual({
      CHROMIUM_PATH: '/usr/bin/chromium',
      CHROMIUM_ARGS: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-quic',
      ],
    });
    process.env.CHROMIUM_PATH = '/opt/chromium/chrome';
    expect(load().CHROMIUM_PATH).toBe('/opt/chromium/chrome');
    expect(chromiumAtImport.CHROMIUM_ARGS).toEqual(load().CHROMIUM_ARGS);
  });
});

describe("the tracing file's loader (scripts/webpack/sentry-tracing-flag.js)", () => {
  const loader = sentryTracingFlag as (source: string) => string;

  it("turns Sentry's tracing flag on, every time it appears, and changes nothing else", () => {
    expect(loader('if (__SENTRY_TRACING__) a(); b(__SENTRY_TRACING__ && c);')).toBe(
      'if (true) a(); b(true && c);',
    );
    expect(loader('const __SENTRY_DEBUG__ = 1;')).toBe('const __SENTRY_DEBUG__ = 1;');
  });
});
