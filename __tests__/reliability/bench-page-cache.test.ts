// `npm run bench:page-cache` as a newcomer runs it (bench/page-cache.js), in a short mode: it builds,
// serves the product page three ways, and leaves its figures. Whether a hit is cheap is the bench's
// to say; this holds that the command runs, that every row is measured, and that every answer was a
// 200 (the bench fails otherwise). No speed is asserted.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ROOT } from '../support/paths';

jest.setTimeout(600_000);

interface Row {
  name: string;
  rps: number;
  ratio: number;
  cpuMicrosPerRequest: number;
  requests: number;
  non200: number;
}

let folder: string;
afterAll(() => rmSync(folder, { recursive: true, force: true }));

it('npm run bench:page-cache measures the three caches, every answer a 200 hit', async () => {
  folder = mkdtempSync(path.join(tmpdir(), 'app-shell-bench-page-cache-test-'));
  const out = path.join(folder, 'page-cache.json');
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    const child = spawn('npm', ['run', 'bench:page-cache'], {
      cwd: ROOT,
      env: { ...process.env, BENCH_ROUNDS: '2', BENCH_SECONDS: '1', BENCH_JSON_OUT: out },
    });
    let text = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    child.on('close', (status) => resolve({ code: status, output: text }));
  });
  expect({ code, output }).toMatchObject({ code: 0 });
  const { rows, setup } = JSON.parse(readFileSync(out, 'utf8')) as { rows: Row[]; setup: { rounds: number } };
  expect(setup.rounds).toBe(2);
  expect(rows.map((row) => row.name)).toEqual([
    "Next's own cache",
    "shell's handler, with a store",
    "shell's handler, without a store",
  ]);
  for (const row of rows) {
    for (const figure of [row.rps, row.ratio, row.cpuMicrosPerRequest, row.requests]) {
      expect(Number.isFinite(figure)).toBe(true);
      expect(figure).toBeGreaterThan(0);
    }
    expect(row.non200).toBe(0);
  }
  // The table a newcomer reads, one line a row.
  for (const row of rows) expect(output).toContain(row.name);
});
