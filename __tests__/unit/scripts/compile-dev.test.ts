// `npm run dev`'s compile of the server (scripts/compile-dev.js): every file the server needs at run
// time, where `npm run build:server` puts it, as CommonJS Node runs. The dev server's end-to-end test
// (__tests__/e2e/dev-server.test.ts) runs the command itself from a clean checkout. Here, on a copy
// of the server's sources, whose times the restart's test may change.
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import * as esbuild from 'esbuild';
import ts from 'typescript';
import { compileDev, upToDate } from '../../../scripts/compile-dev';
import { SOURCE_ROOT } from '../../support/paths';

/** tsconfig.server.json's entries, as `npm run build:server` reads them. */
function entries(root: string): string[] {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.server.json'), ts.sys.readFile);
  return (config as { include: string[] }).include.map((file) => path.join(root, file));
}

let root: string;
let out: string;
let compiled: string[];

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'compile-dev-'));
  for (const part of ['lib', 'components', 'scripts', 'tsconfig.json', 'tsconfig.server.json'])
    cpSync(path.join(SOURCE_ROOT, part), path.join(root, part), { recursive: true });
  // What a folder may also hold, which is no source: a declaration file, a file named after one.
  writeFileSync(path.join(root, 'lib/ambient.d.ts'), 'declare const ambient: string;\n');
  writeFileSync(path.join(root, 'lib/notes.ts.txt'), 'not TypeScript\n');
  out = path.join(root, 'dist');
  compiled = await compileDev(root, out);
}, 30_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

const emitted = (source: string) => path.join(out, path.relative(root, source)).replace(/\.tsx?$/, '.js');

/** The relative modules a compiled file requires. */
function requiredBy(file: string): string[] {
  const code = readFileSync(file, 'utf8');
  return [...code.matchAll(/require\("(\.{1,2}\/[^"]+)"\)/g)].map((match) => match[1]!);
}

describe("npm run dev's compile of the server", () => {
  it('compiles every entry of tsconfig.server.json to where npm run build:server puts it', () => {
    for (const entry of entries(root)) expect(existsSync(emitted(entry))).toBe(true);
    expect(existsSync(path.join(out, 'lib/server/start.js'))).toBe(true);
  });

  it('compiles every file of the project a compiled file requires, .tsx screens included', () => {
    const missing: string[] = [];
    for (const source of compiled) {
      const file = emitted(source);
      for (const request of requiredBy(file)) {
        const target = path.resolve(path.dirname(file), request);
        if (
          ![target, `${target}.js`, path.join(target, 'index.js')].some((candidate) => existsSync(candidate))
        )
          missing.push(`${path.relative(out, file)} → ${request}`);
      }
    }
    expect(missing).toEqual([]);
    expect(compiled.some((source) => source.endsWith('.tsx'))).toBe(true);
    // Each once, from the project's folders only, and no declaration file nor other file.
    expect(new Set(compiled).size).toBe(compiled.length);
    expect(
      compiled.filter((source) => !/^(lib|components|scripts)\//.test(path.relative(root, source))),
    ).toEqual([]);
    expect(compiled).not.toContain(path.join(root, 'lib/ambient.d.ts'));
    expect(compiled).not.toContain(path.join(root, 'lib/notes.ts.txt'));
    expect(existsSync(path.join(out, 'lib/ambient.d.js'))).toBe(false);
  });

  it('writes CommonJS with the automatic JSX runtime, no type left', () => {
    const start = readFileSync(path.join(out, 'lib/server/start.js'), 'utf8');
    expect(start).toMatch(/require\("node:path"\)/);
    expect(start).not.toMatch(/^import /m);
    // start.ts import()s modules it needs on some starts only: required, as tsc writes it.
    expect(readFileSync(path.join(root, 'lib/server/start.ts'), 'utf8')).toMatch(/import\('\.\.\//);
    expect(compiled.map(emitted).filter((file) => /\bimport\(/.test(readFileSync(file, 'utf8')))).toEqual([]);
    const screen = path.join(root, 'components/error-screen/ErrorScreen.tsx');
    expect(readFileSync(emitted(screen), 'utf8')).toMatch(/require\("react\/jsx-runtime"\)/);
  });
});

describe('what the compile leaves running', () => {
  it('no esbuild process: the dev session does not keep its service', () => {
    // (The compile in beforeAll stopped it once written. One that has exited and is not yet reaped,
    // state Z, holds no memory.)
    const children = execFileSync('ps', ['--ppid', String(process.pid), '-o', 'stat=,args='], {
      encoding: 'utf8',
    });
    const running = children.split('\n').filter((line) => line.includes('esbuild') && !line.startsWith('Z'));
    expect(running).toEqual([]);
  });
});

describe('a restart', () => {
  it('compiles when there is no record of a compile, or one it cannot read', () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'compile-dev-out-'));
    try {
      expect(upToDate(root, elsewhere)).toBe(false);
      writeFileSync(path.join(elsewhere, '.dev-compile.json'), '{"read": ');
      expect(upToDate(root, elsewhere)).toBe(false);
      writeFileSync(path.join(elsewhere, '.dev-compile.json'), '{"read": ["lib/gone.ts"], "wrote": []}');
      expect(upToDate(root, elsewhere)).toBe(false);
      // The record of a compile that stands, but made by another esbuild (an upgrade): compiled again.
      const record = JSON.parse(readFileSync(path.join(out, '.dev-compile.json'), 'utf8')) as object;
      const by = (version: string) => JSON.stringify({ ...record, esbuild: version, wrote: [] });
      writeFileSync(path.join(elsewhere, '.dev-compile.json'), by(esbuild.version));
      expect(upToDate(root, elsewhere)).toBe(true);
      writeFileSync(path.join(elsewhere, '.dev-compile.json'), by('0.27.0'));
      expect(upToDate(root, elsewhere)).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('compiles nothing when nothing changed, and all again once a source, the config or an output changes', async () => {
    expect(await compileDev(root, out)).toEqual([]);
    // A source exactly as new as the record (an edit in the same tick of the clock): compiled again.
    const source = path.join(root, 'lib/log/logger.ts');
    const record = path.join(out, '.dev-compile.json');
    const tick = new Date(Math.floor(statSync(record).mtimeMs / 1000) * 1000);
    const before = new Date(tick.getTime() - 10_000);
    for (const file of [...compiled, path.join(root, 'tsconfig.json')]) utimesSync(file, before, before);
    utimesSync(record, tick, tick);
    expect(await compileDev(root, out)).toEqual([]);
    utimesSync(source, tick, tick);
    expect(await compileDev(root, out)).toEqual(compiled);
    expect(await compileDev(root, out)).toEqual([]);
    rmSync(path.join(out, 'lib/server/pipeline.js'));
    expect(await compileDev(root, out)).toEqual(compiled);
    expect(existsSync(path.join(out, 'lib/server/pipeline.js'))).toBe(true);
    const config = path.join(root, 'tsconfig.json');
    expect(await compileDev(root, out)).toEqual([]);
    utimesSync(config, new Date(), new Date(Date.now() + 1000));
    expect(await compileDev(root, out)).toEqual(compiled);
  });
});
