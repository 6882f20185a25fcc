// The per-folder bar of mutation testing (scripts/mutation-scores.mjs), on reports made up here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const FOLDERS = [
  'lib/client',
  'lib/config',
  'lib/error-pages',
  'lib/errors',
  'lib/files',
  'lib/fleet',
  'lib/health',
  'lib/http',
  'lib/language',
  'lib/lifecycle',
  'lib/log',
  'lib/management',
  'lib/metrics',
  'lib/process',
  'lib/reporting',
  'lib/server',
  'lib/service-worker',
  'components',
  'scripts',
  // A file of its own at the top, scored as a folder of one.
  'instrumentation.ts',
];
/** A file in the folder, or the file itself for a top-level one. */
const fileIn = (folder: string) => (folder.endsWith('.ts') ? folder : `${folder}/a.ts`);

type Status = 'Killed' | 'Timeout' | 'Survived' | 'NoCoverage' | 'Ignored' | 'CompileError';

function mutants(counts: Partial<Record<Status | 'Static', number>>) {
  const list: object[] = [];
  for (const [status, n] of Object.entries(counts)) {
    for (let i = 0; i < n; i += 1) {
      list.push({
        id: `${status}${i}`,
        mutatorName: 'ConditionalExpression',
        replacement: 'false',
        location: { start: { line: i + 1, column: 3 }, end: { line: i + 1, column: 9 } },
        status: status === 'Static' ? 'Ignored' : status,
        statusReason:
          status === 'Static'
            ? 'Static mutant (and "ignoreStatic" was enabled)'
            : status === 'Ignored'
              ? 'the log line is not a promise'
              : undefined,
      });
    }
  }
  return list;
}

type Files = Record<string, Partial<Record<Status | 'Static', number>>>;

function run(files: Files, flags: string[] = [], kept: Record<string, number> = {}) {
  const report = {
    schemaVersion: '2',
    thresholds: { high: 90, low: 85 },
    files: Object.fromEntries(
      Object.entries(files).map(([name, counts]) => [
        name,
        { language: 'typescript', source: '', mutants: mutants(counts) },
      ]),
    ),
  };
  const dir = mkdtempSync(path.join(tmpdir(), 'mutation-scores-'));
  const file = path.join(dir, 'mutation.json');
  writeFileSync(file, JSON.stringify(report));
  writeFileSync(path.join(dir, 'kept.json'), JSON.stringify(kept));
  const result = spawnSync(
    process.execPath,
    ['scripts/mutation-scores.mjs', file, `--kept=${path.join(dir, 'kept.json')}`, ...flags],
    { encoding: 'utf8' },
  );
  return { status: result.status, out: result.stdout, err: result.stderr };
}

const everyFolderAt = (counts: Partial<Record<Status | 'Static', number>>) =>
  Object.fromEntries(FOLDERS.map((folder) => [fileIn(folder), counts]));

const rowOf = (out: string, folder: string) => out.split('\n').find((line) => line.startsWith(`${folder} `));

describe('mutation-scores', () => {
  const keptAt = (n: number) => Object.fromEntries(FOLDERS.map((folder) => [folder, n]));

  it('scores the folders the configuration mutates, and takes a file it leaves out (!) for no folder', () => {
    const { out } = run(everyFolderAt({ Killed: 90, Survived: 10 }), [], keptAt(10));
    const scored = out
      .split('\n')
      .slice(1)
      .filter((line) => /(%|none)$/.test(line))
      .map((line) => line.split(' ')[0]);
    expect(scored).toEqual(FOLDERS);
  });

  it('passes when every folder is at the bar, counting a timeout as killed', () => {
    const { status, out } = run(everyFolderAt({ Killed: 80, Timeout: 5, Survived: 15 }), [], keptAt(15));
    expect(status).toBe(0);
    expect(rowOf(out, 'lib/http')).toMatch(/\s80\s+5\s+15\s+0\s+0\s+0\s+85\.00 %$/);
  });

  it('fails a folder under the bar, however good the others are, and names it', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/health/a.ts'] = { Killed: 84, Survived: 16 };
    const { status, err } = run(files, ['--require-bar'], { 'lib/health': 16 });
    expect(status).toBe(1);
    expect(err).toContain('Under the bar of 85 %: lib/health');
    // Without --require-bar it only says so: the kept survivors hold the folder where it is.
    expect(run(files, [], { 'lib/health': 16 })).toMatchObject({
      status: 0,
      err: expect.stringContaining('lib/health'),
    });
  });

  it('lets a folder --not-yet names stay under the bar, and only that one', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['scripts/a.ts'] = { Killed: 70, Survived: 30 };
    expect(run(files, ['--require-bar', '--not-yet=components,scripts'], { scripts: 30 })).toMatchObject({
      status: 0,
      err: expect.stringContaining('Under the bar of 85 %: scripts'),
    });
    files['lib/health/a.ts'] = { Killed: 84, Survived: 16 };
    const { status, err } = run(files, ['--require-bar', '--not-yet=scripts'], {
      scripts: 30,
      'lib/health': 16,
    });
    expect(status).toBe(1);
    expect(err).toContain('Under the bar of 85 %: lib/health, scripts');
    // Its kept survivors still hold it: one more fails.
    files['scripts/a.ts'] = { Killed: 69, Survived: 31 };
    expect(run(files, ['--require-bar', '--not-yet=scripts'], { scripts: 30 }).status).toBe(1);
  });

  it('counts a mutant no test reached as survived, and one explained by a comment too', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 85, NoCoverage: 8, Ignored: 8 };
    const { status, out, err } = run(files, ['--require-bar'], { 'lib/http': 8 });
    expect(rowOf(out, 'lib/http')).toMatch(/\s85\s+0\s+0\s+8\s+8\s+0\s+84\.16 %$/);
    expect(status).toBe(1);
    expect(err).toContain('lib/http');
  });

  it('leaves out static mutants that were not run, and mutants that do not compile', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 85, Survived: 15, Static: 40, CompileError: 30 };
    const { status, out } = run(files, [], { 'lib/http': 15 });
    expect(rowOf(out, 'lib/http')).toMatch(/\s85\s+0\s+15\s+0\s+0\s+40\s+85\.00 %$/);
    expect(status).toBe(0);
  });

  it('fails a folder with no mutant at all: its glob matched nothing', () => {
    const files = everyFolderAt({ Killed: 100 });
    delete files['lib/config/a.ts'];
    const { status, out, err } = run(files, ['--require-bar']);
    expect(rowOf(out, 'lib/config')).toMatch(/none$/);
    expect(status).toBe(1);
    expect(err).toContain('lib/config');
  });

  it('names every unexplained survivor with --list, and only those', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 100, Survived: 1, NoCoverage: 1, Ignored: 1 };
    const { out } = run(files, ['--list'], { 'lib/http': 2 });
    expect(out).toContain('No test fails and no comment explains 2 mutant(s):');
    expect(out).toContain('lib/http/a.ts:1:3 Survived ConditionalExpression → "false"');
    expect(out).toContain('lib/http/a.ts:1:3 NoCoverage ConditionalExpression → "false"');
  });

  it('fails a folder with more unexplained survivors than are kept, naming each, even above the bar', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/fleet/a.ts'] = { Killed: 100, Survived: 2, Ignored: 3 };
    const over = run(files, [], { 'lib/fleet': 1 });
    expect(over.status).toBe(1);
    expect(over.err).toContain('lib/fleet: 2 mutant(s) no test fails and no comment explains, 1 kept');
    expect(over.err).toContain('lib/fleet/a.ts:2:3 Survived');
    const kept = run(files, [], { 'lib/fleet': 2 });
    expect(kept.status).toBe(0);
  });

  it('asks for the kept figure to be lowered once survivors are killed', () => {
    const { status, out } = run(everyFolderAt({ Killed: 100 }), [], { 'lib/server': 3 });
    expect(status).toBe(0);
    expect(out).toContain('lib/server: 0 left; lower it in');
  });
});
