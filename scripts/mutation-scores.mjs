// The mutation score of each folder StrykerJS mutates, from its JSON report: the bar (85 %) holds
// per folder, as Stryker's own `thresholds.break` only judges the total, where a folder tested well
// could hide one that is not. Scores as Stryker counts them (mutation-testing-metrics, its own
// library): a timeout counts as killed, a mutant no test reached as survived, and mutants disabled
// in the code with a reason (docs/mutation-testing.md) do not count.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { calculateMetrics } from 'mutation-testing-metrics';
import config from '../stryker.config.mjs';

export const BAR = 85;
const REPORT = 'reports/mutation/mutation.json';

/** The folders the configuration mutates: `lib/fleet/**\/*.ts` → `lib/fleet`. */
export const folders = (config.mutate ?? []).map((glob) => String(glob).split('/**')[0]);

/**
 * Each folder's figures; a folder with no mutant at all fails, as a glob that matched nothing.
 * @param {import('mutation-testing-report-schema').MutationTestResult} report
 */
export function scoresOf(report) {
  return folders.map((folder) => {
    const files = Object.fromEntries(
      Object.entries(report.files).filter(([name]) => {
        const relative = path.isAbsolute(name) ? path.relative(process.cwd(), name) : name;
        return relative.split(path.sep).join('/').startsWith(`${folder}/`);
      }),
    );
    const { metrics } = calculateMetrics(files);
    return { folder, ...metrics };
  });
}

function main() {
  const report = JSON.parse(readFileSync(REPORT, 'utf8'));
  const rows = scoresOf(report);
  /** @type {(value: unknown, width: number) => string} */
  const cell = (value, width) => String(value).padStart(width);
  console.log(`folder               killed timeout survived no-cover ignored   score (bar ${BAR} %)`);
  for (const row of rows) {
    const score = row.totalValid === 0 ? 'none' : `${row.mutationScore.toFixed(2)} %`;
    console.log(
      `${row.folder.padEnd(20)} ${cell(row.killed, 6)} ${cell(row.timeout, 7)} ${cell(row.survived, 8)} ${cell(row.noCoverage, 8)} ${cell(row.ignored, 7)} ${cell(score, 9)}`,
    );
  }
  const under = rows.filter((row) => row.totalValid === 0 || row.mutationScore < BAR);
  if (under.length > 0) {
    console.error(`Under the bar of ${BAR} %: ${under.map((row) => row.folder).join(', ')}`);
    process.exit(1);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
