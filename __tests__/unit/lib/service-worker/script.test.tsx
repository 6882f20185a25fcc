import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import ts from 'typescript';
import {
  standalone,
  WORKER_MAX_BYTES,
  withoutComments,
  workerScript,
  workerSettings,
  type WorkerBuild,
} from '@lib/service-worker/script';
import type { WorkerSettings } from '@lib/service-worker/worker';

import { copyIn } from '@lib/screens/languages';
import { screenMarkup as markup } from '../../../../components/error-screen/markup';
import { SOURCE_ROOT } from '../../../support/paths';

const FOLDER = path.join(SOURCE_ROOT, 'lib/service-worker');
/** As tsconfig.server.json compiles them for `npm run build`. */
function compiled(file: string): string {
  const source = readFileSync(path.join(FOLDER, file), 'utf8');
  return ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  }).outputText;
}

const CSS = '.es-main{max-width:40rem}';
const build = (on = true): WorkerBuild => ({
  on,
  build: { id: 'abc123', time: 1_700_000_000_000 },
  compiled: { worker: compiled('worker.ts'), comeBack: compiled('come-back.ts') },
  css: CSS,
  language: copyIn('en'),
  markup,
});

/** Runs the script as a browser runs a worker's, and returns what it registered and was given. */
function runWorker(text: string) {
  const listeners: string[] = [];
  let settings: WorkerSettings | undefined;
  const self = { addEventListener: (type: string) => listeners.push(type) };
  // The settings as the script passes them: the worker module's own export is replaced to see them.
  vm.runInNewContext(
    text.replace('exports.startWorker(self, ', 'exports.startWorker = capture; exports.startWorker(self, '),
    {
      self,
      capture: (_: unknown, given: WorkerSettings) => {
        settings = given;
        listeners.push('(started)');
      },
    },
  );
  vm.runInNewContext(text, { self, Response, Number, Error });
  return { listeners, settings: settings! };
}

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

describe('the worker’s script', () => {
  it('runs as a classic worker script: no module system, its settings given', () => {
    const { listeners, settings } = runWorker(workerScript(build()));
    expect(listeners).toEqual(['(started)', 'install', 'activate', 'fetch']);
    expect(settings).toMatchObject({ on: true, build: { id: 'abc123', time: 1_700_000_000_000 } });
  });

  it(`weighs at most ${WORKER_MAX_BYTES} bytes, both screens included`, () => {
    expect(Buffer.byteLength(workerScript(build()))).toBeLessThanOrEqual(WORKER_MAX_BYTES);
    expect(() => workerScript({ ...build(), css: 'x'.repeat(WORKER_MAX_BYTES) })).toThrow(/at most/);
  });

  it('is built at 24 KiB exactly, and refused one byte past it (docs/unavailable-screens.md)', () => {
    // A string statement added to the worker's code, which the script carries once as it is.
    const withCode = (extra: string): WorkerBuild => {
      const plain = build();
      return { ...plain, compiled: { ...plain.compiled, worker: `${plain.compiled.worker}\n"${extra}";` } };
    };
    const base = Buffer.byteLength(workerScript(withCode('')));
    const padded = (bytes: number) => withCode('x'.repeat(bytes - base));
    expect(Buffer.byteLength(workerScript(padded(24 * 1024)))).toBe(24_576);
    expect(() => workerScript(padded(24 * 1024 + 1))).toThrow(
      "The service worker's script is 24577 bytes; at most 24576 are allowed.",
    );
  });

  it('with SERVICE_WORKER=off carries no screen and answers nothing', () => {
    const { listeners, settings } = runWorker(workerScript(build(false)));
    expect(listeners).toEqual(['(started)', 'install', 'activate']);
    expect(settings.screens).toEqual({ offline: '', unavailable: '' });
  });

  it('differs with every build', () => {
    const other = { ...build(), build: { id: 'def456', time: 1_700_000_000_001 } };
    expect(workerScript(other)).not.toBe(workerScript(build()));
  });
});

describe('the screens it carries', () => {
  const settings = workerSettings(build());

  it.each(['offline', 'unavailable'] as const)(
    '%s: the shell’s screen, styled, with one script and no refresh',
    (kind) => {
      const html = settings.screens[kind];
      expect(html).toContain(`<main class="es-main" data-screen="${kind}" lang="en" dir="ltr">`);
      expect(html).toContain(`<style>${CSS}</style>`);
      expect(html.match(/<script>/g)).toHaveLength(1);
      expect(html).not.toMatch(/http-equiv="refresh"|<script src|<link/);
    },
  );

  it('may run exactly their script and their style, and load nothing else', () => {
    const policy = settings.screenHeaders['Content-Security-Policy']!;
    const html = settings.screens.offline;
    const script = /<script>([\s\S]*)<\/script>/.exec(html)![1]!;
    const style = /<style>([\s\S]*)<\/style>/.exec(html)![1]!;
    expect(policy).toContain(`script-src ${sha256(script)};`);
    expect(policy).toContain(`style-src ${sha256(style)};`);
    expect(policy).toContain("default-src 'none'");
    expect(settings.screenHeaders).toMatchObject({ 'Cache-Control': 'no-store', 'Retry-After': '5' });
  });

  it('their script starts bringing the page back when it runs', () => {
    const script = /<script>([\s\S]*)<\/script>/.exec(settings.screens.unavailable)![1]!;
    const timers: number[] = [];
    const listeners: string[] = [];
    vm.runInNewContext(script, {
      window: {
        addEventListener: (type: string) => listeners.push(type),
        setTimeout: (_: unknown, ms: number) => timers.push(ms),
        clearTimeout: () => {},
        fetch: () => new Promise(() => {}),
        location: { href: 'http://x/', reload: () => {} },
      },
      Math,
    });
    expect(listeners).toEqual(['online']);
    expect(timers).toHaveLength(1);
  });

  it.each([
    [0.5, [1000, 2000, 4000, 8000, 8000]],
    [0, [750, 1500, 3000, 6000, 6000]],
    [1, [1250, 2500, 5000, 10_000, 10_000]],
  ])(
    'their script, as built, waits about 1, 2, 4, 8, then 8 s, a quarter either way (random %p)',
    async (random, expected) => {
      const script = /<script>([\s\S]*)<\/script>/.exec(settings.screens.offline)![1]!;
      const waits: number[] = [];
      const due: (() => void)[] = [];
      vm.runInNewContext(script, {
        window: {
          addEventListener: () => {},
          setTimeout: (callback: () => void, ms: number) => waits.push(ms) && due.push(callback),
          clearTimeout: () => {},
          // The app stays away: every try fails, and the next wait is set.
          fetch: () => Promise.reject(new TypeError('Failed to fetch')),
          location: { href: 'http://x/', reload: () => {} },
        },
        Math: { random: () => random, min: Math.min },
        Promise,
      });
      while (waits.length < expected.length) {
        due.shift()!();
        await new Promise((resolve) => setImmediate(resolve));
      }
      expect(waits).toEqual(expected);
    },
  );
});

describe('standalone', () => {
  it('refuses a module that imports something at run time', () => {
    expect(() => standalone('const x = require("node:fs");', 'start', [])).toThrow(/imports something/);
  });

  it('leaves out comments on lines of their own, and nothing else', () => {
    const code =
      '// a line\n/** a block\n * of two */\nconst a = "//not a comment";\n  // indented\nf(a); // kept\n';
    expect(withoutComments(code)).toBe('const a = "//not a comment";\nf(a); // kept\n');
  });
});
