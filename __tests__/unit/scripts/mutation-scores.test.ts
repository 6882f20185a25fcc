// The per-folder bar of mutation testing (scripts/mutation-scores.js), on reports made up here.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import scores from '../../../scripts/mutation-scores';

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
  'lib/page-cache',
  'lib/process',
  'lib/reporting',
  'lib/server',
  'lib/screens',
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

/** The report Stryker would write for `files`. */
const reportOf = (files: Files) => ({
  schemaVersion: '2',
  thresholds: { high: 90, low: 85 },
  files: Object.fromEntries(
    Object.entries(files).map(([name, counts]) => [
      name,
      { language: 'typescript', source: '', mutants: mutants(counts) },
    ]),
  ),
});

/** A `mutate` list naming FOLDERS, as stryker.config.mjs does, and leaving the composition root out. */
const MUTATE = [
  ...FOLDERS.map((folder) => (folder.endsWith('.ts') ? folder : `${folder}/**/*.{ts,tsx}`)),
  '!lib/server/start.ts',
];

/** The command, run in this process on a made-up report and kept file. */
function run(files: Files, flags: string[] = [], kept: Record<string, number> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const json: Record<string, unknown> = { 'made-up.json': reportOf(files), 'kept.json': kept };
  const status = scores.run(['made-up.json', '--kept=kept.json', ...flags], MUTATE, {
    log: (line) => out.push(line),
    error: (line) => err.push(line),
    readJson: (file) => json[file],
  });
  return { status, out: out.join('\n'), err: err.join('\n') };
}

/** The command as CI runs it, in a process of its own, reading the real configuration. */
function command(files: Files, flags: string[] = [], kept: Record<string, number> = {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'mutation-scores-'));
  const file = path.join(dir, 'mutation.json');
  writeFileSync(file, JSON.stringify(reportOf(files)));
  writeFileSync(path.join(dir, 'kept.json'), JSON.stringify(kept));
  const result = spawnSync(
    process.execPath,
    ['scripts/mutation-scores.js', file, `--kept=${path.join(dir, 'kept.json')}`, ...flags],
    { encoding: 'utf8' },
  );
  return { status: result.status, out: result.stdout, err: result.stderr };
}

const everyFolderAt = (counts: Partial<Record<Status | 'Static', number>>) =>
  Object.fromEntries(FOLDERS.map((folder) => [fileIn(folder), counts]));

const rowOf = (out: string, folder: string) => out.split('\n').find((line) => line.startsWith(`${folder} `));

describe('mutation-scores', () => {
  const keptAt = (n: number) => Object.fromEntries(FOLDERS.map((folder) => [folder, n]));

  it('scores the folders the configuration mutates, as a command in a process of its own', () => {
    const { status, out } = command(
      everyFolderAt({ Killed: 90, Survived: 10 }),
      ['--require-bar'],
      keptAt(10),
    );
    expect(status).toBe(0);
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

describe('mutation-scores, read closely', () => {
  it('counts no mutant of a file the configuration leaves out (!), in its folder or any', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/server/start.ts'] = { Survived: 50, NoCoverage: 65 };
    const { status, out } = run(files, ['--require-bar']);
    expect(status).toBe(0);
    expect(rowOf(out, 'lib/server')).toMatch(/\s100\s+0\s+0\s+0\s+0\s+0\s+100\.00 %$/);
  });

  it('takes a file by its path from the working folder when the report names it in full', () => {
    const files = everyFolderAt({ Killed: 100 });
    files[path.join(process.cwd(), 'lib/http/b.ts')] = { Survived: 1 };
    const { status, err } = run(files);
    expect(status).toBe(1);
    expect(err).toContain('  lib/http/b.ts:1:3 Survived ConditionalExpression → "false"');
  });

  it('takes a file into a folder only below it: lib/log is not lib/logger.ts or lib/log-extra/', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/logger.ts'] = { Survived: 5 };
    files['lib/log-extra/a.ts'] = { Survived: 5 };
    files['instrumentation.tsx'] = { Survived: 5 };
    expect(run(files, ['--require-bar'])).toMatchObject({ status: 0, err: '' });
  });

  it('prints a table a line a folder, figures in columns', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 80, Timeout: 7, Survived: 6, NoCoverage: 4, Ignored: 3, Static: 2 };
    const { out } = run(files, [], { 'lib/http': 10 });
    const lines = out.split('\n');
    expect(lines[0]).toBe(
      'folder             killed timeout survived no-cover explained not-run   score (bar 85 %)',
    );
    expect(lines).toContain(
      'lib/http               80       7        6        4         3       2   87.00 %',
    );
    expect(lines).toContain(
      'lib/client            100       0        0        0         0       0  100.00 %',
    );
    expect(lines).toHaveLength(FOLDERS.length + 1);
  });

  it('reads the report and the kept counts from where CI leaves them, unless told', () => {
    const read: string[] = [];
    const status = scores.run([], MUTATE, {
      log: () => {},
      error: () => {},
      readJson: (file) => {
        read.push(file);
        return file === 'reports/mutation/mutation.json' ? reportOf(everyFolderAt({ Killed: 1 })) : {};
      },
    });
    expect(status).toBe(0);
    expect(read).toEqual(['reports/mutation/mutation.json', 'scripts/mutation-survivors.json']);
  });

  it('lists nothing without --list, and says nothing of lowering a count that is right', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 100, Survived: 1 };
    const { status, out, err } = run(files, [], { 'lib/http': 1 });
    expect(status).toBe(0);
    expect(out).not.toContain('No test fails');
    expect(out).not.toContain('lower it');
    expect(err).toBe('');
  });

  it('names the kept count of a folder that keeps none as 0', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 100, Survived: 1 };
    expect(run(files).err).toContain(
      'lib/http: 1 mutant(s) no test fails and no comment explains, 0 kept in kept.json.',
    );
  });
});

describe('mutation-scores, at its edges', () => {
  it('passes a folder at exactly 85 % with --require-bar, and fails one a mutant under', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 85, Survived: 15 };
    expect(run(files, ['--require-bar'], { 'lib/http': 15 }).status).toBe(0);
    files['lib/http/a.ts'] = { Killed: 84, Timeout: 0, Survived: 16 };
    expect(run(files, ['--require-bar'], { 'lib/http': 16 }).status).toBe(1);
  });

  it('takes the report from the first argument that is not a flag, wherever it stands', () => {
    const read: string[] = [];
    scores.run(['--list', '--kept=kept.json', 'elsewhere.json'], MUTATE, {
      log: () => {},
      error: () => {},
      readJson: (file) => {
        read.push(file);
        return file === 'elsewhere.json' ? reportOf(everyFolderAt({ Killed: 1 })) : {};
      },
    });
    expect(read).toEqual(['elsewhere.json', 'kept.json']);
  });

  it('lists nothing with --list when every mutant is killed', () => {
    expect(run(everyFolderAt({ Killed: 100 }), ['--list']).out).not.toContain('No test fails');
  });

  it('says how to deal with a new survivor, in full', () => {
    const files = everyFolderAt({ Killed: 100 });
    files['lib/http/a.ts'] = { Killed: 100, Survived: 1 };
    expect(run(files).err.split('\n').slice(0, 3)).toEqual([
      '',
      'lib/http: 1 mutant(s) no test fails and no comment explains, 0 kept in kept.json. Kill the new ones ' +
        'with a test of behaviour, or explain them (docs/mutation-testing.md):',
      '  lib/http/a.ts:1:3 Survived ConditionalExpression → "false"',
    ]);
  });

  it('counts as explained a mutant whose reason only mentions a static mutant, and names one with no replacement', () => {
    const report = reportOf(everyFolderAt({ Killed: 100 }));
    report.files['lib/http/a.ts']!.mutants.push(
      {
        id: 'x1',
        mutatorName: 'StringLiteral',
        location: { start: { line: 7, column: 1 }, end: { line: 7, column: 2 } },
        status: 'Ignored',
        statusReason: 'like a Static mutant, but explained: the log line is not a promise',
      } as never,
      {
        id: 'x2',
        mutatorName: 'BlockStatement',
        location: { start: { line: 9, column: 4 }, end: { line: 9, column: 5 } },
        status: 'Survived',
      } as never,
    );
    const http = scores.scoresOf(report as never, MUTATE).find((row) => row.folder === 'lib/http');
    expect(http).toMatchObject({ folder: 'lib/http', explained: 1, notRun: 0 });
    expect(http!.unexplained).toEqual(['lib/http/a.ts:9:4 Survived BlockStatement → ""']);
  });
});
