// `npm run bench:product-pages` as a newcomer runs it (bench/product-pages.js), in a short mode: it
// builds the shell with two product pages, serves them by the shell and by bare `next start` on the
// same build, and leaves its figures and its profiles. Whether the shell is cheap is the bench's to
// say; this holds that the command runs, that every row and every profile is measured, and that every
// answer was the one its row expects (the bench fails otherwise). No speed is asserted.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/paths';

jest.setTimeout(600_000);

interface Row {
  name: string;
  path: string;
  server: string;
  baseline: string;
  rps: number;
  baselineRps: number;
  ratio: number;
  ratios: number[];
  pairs: [string, string][];
  processRatios: number[];
  cpuMicrosPerRequest: number;
  baselineCpuMicrosPerRequest: number;
  other: number;
}

interface Profile {
  microsPerRequest: number;
  byOwner: [string, number][];
  byStage: [string, number][];
}

let folder: string;
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it('npm run bench:product-pages measures each page on the shell against its baseline, and profiles both', async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'app-shell-bench-product-pages-test-'));
  const out = path.join(folder, 'product-pages.json');
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('npm', ['run', 'bench:product-pages'], {
      cwd: ROOT,
      env: {
        ...process.env,
        BENCH_PROCESSES: '2',
        BENCH_ROUNDS: '2',
        BENCH_SECONDS: '1',
        BENCH_PROFILE: '1',
        BENCH_PROFILE_SECONDS: '1',
        BENCH_JSON_OUT: out,
      },
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.on('close', (status) => resolve({ code: status, output: text }));
  });
  expect({ code, output }).toMatchObject({ code: 0 });
  const { rows, setup, profiles } = JSON.parse(readFileSync(out, 'utf8')) as {
    rows: Row[];
    setup: { processes: number; rounds: number; connections: number };
    profiles: Record<string, Profile>;
  };
  expect(setup).toMatchObject({ processes: 2, rounds: 2, connections: 50 });
  expect(rows.map((row) => [row.path, row.server, row.baseline])).toEqual([
    ['/products?page=2', 'the shell, every default', 'bare next start'],
    ['/post/hello', 'the shell, every default', 'bare next start'],
    ['/no-such-page', 'the shell, every default', 'the shell, log and metrics off'],
    ['/no-such-page', 'the shell, every default', 'bare next start'],
  ]);
  for (const row of rows) {
    expect(row.ratios).toHaveLength(2);
    // Round r loads process r mod 2 of each kind: both processes of each are measured.
    expect(row.pairs).toEqual([
      [`${row.server} 1`, `${row.baseline} 1`],
      [`${row.server} 2`, `${row.baseline} 2`],
    ]);
    expect(row.processRatios).toHaveLength(2);
    for (const figure of [
      row.rps,
      row.baselineRps,
      row.ratio,
      row.cpuMicrosPerRequest,
      row.baselineCpuMicrosPerRequest,
    ]) {
      expect(Number.isFinite(figure)).toBe(true);
      expect(figure).toBeGreaterThan(0);
    }
    expect(row.other).toBe(0);
    expect(output).toContain(row.name);
  }
  // A profile of each page in each server, naming the shell's own modules in the shell's.
  expect(Object.keys(profiles).sort()).toEqual(
    ['/no-such-page', '/post/hello', '/products?page=2']
      .flatMap((page) => [`${page} bare`, `${page} shell`])
      .sort(),
  );
  for (const [name, profile] of Object.entries(profiles)) {
    expect(profile.microsPerRequest).toBeGreaterThan(0);
    const stages = profile.byStage.map(([stage]) => stage);
    if (name.endsWith('shell')) expect(stages).toContain('lib/server/pipeline');
    else expect(stages.filter((stage) => stage.startsWith('lib/'))).toEqual([]);
  }
});
