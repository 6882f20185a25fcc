// One row per scenario (scenario, requests, failures, worst latency), appended by each test file
// and printed as a table at the end of the run (global-teardown.ts).
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const RESULTS_DIR = path.resolve(__dirname, '../../test-results');
export const RESULTS_JSONL = path.join(RESULTS_DIR, 'reliability.jsonl');
export const RESULTS_TABLE = path.join(RESULTS_DIR, 'reliability.md');

export interface ResultRow {
  scenario: string;
  requests: number;
  failures: number;
  worstLatencyMs: number;
  note?: string;
}

export function recordResult(row: ResultRow): void {
  appendFileSync(RESULTS_JSONL, `${JSON.stringify(row)}\n`);
}

export function readResults(): ResultRow[] {
  try {
    return readFileSync(RESULTS_JSONL, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as ResultRow);
  } catch {
    return [];
  }
}

export function formatTable(rows: ResultRow[]): string {
  const header = ['scenario', 'requests', 'failures', 'worst latency', 'note'];
  const cells = rows.map((r) => [
    r.scenario,
    String(r.requests),
    String(r.failures),
    `${Math.round(r.worstLatencyMs)} ms`,
    r.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((v, i) => v.padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}
