// The mutation score of each folder StrykerJS mutates, from its JSON report (docs/mutation-testing.md).
// `node scripts/mutation-scores.mjs [report.json] [--list] [--kept=file.json] [--require-bar]
// [--not-yet=folder,folder]`;
// `--list` names every unexplained survivor.
// The bar (85 %) holds per folder: Stryker's own `thresholds.break` only judges the total, where a
// folder tested well could hide one that is not. Counted as the issue that asked for it says, and
// stricter than Stryker's own score:
// - a timeout counts as killed, a mutant no test reached as survived;
// - a mutant disabled in the code with a reason (`// Stryker disable next-line …: why`) still counts
//   as survived: the reason explains it, it does not make a test of it;
// - a static mutant (module code run at import) that `ignoreStatic` left out is not counted, and is
//   shown as "not run";
// - a mutant that does not compile, or breaks the run itself, is not a mutant of behaviour.
// The counts come from mutation-testing-metrics, Stryker's own library; only "explained" and
// "not run" are told apart here, by the reason Stryker gives.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { calculateMetrics } from 'mutation-testing-metrics';
import config from '../stryker.config.mjs';

export const BAR = 85;
export const REPORT = 'reports/mutation/mutation.json';
/** Per folder, how many mutants no test fails and no comment explains are known and allowed. */
export const KEPT = 'scripts/mutation-survivors.json';
const STATIC_REASON = /^Static mutant/;

/** The folders the configuration mutates: `lib/fleet/**\/*.ts` → `lib/fleet` (a `!` pattern leaves a file out). */
const patterns = (config.mutate ?? []).map(String);
export const folders = patterns.filter((glob) => !glob.startsWith('!')).map((glob) => glob.split('/**')[0]);

/**
 * Files the configuration leaves out (`!lib/server/start.ts`). Stryker's incremental record keeps
 * the results of a file it mutated before, so they are left out here as well.
 */
const leftOut = new Set(patterns.filter((glob) => glob.startsWith('!')).map((glob) => glob.slice(1)));

/** @param {string} name */
const relativeName = (name) =>
  (path.isAbsolute(name) ? path.relative(process.cwd(), name) : name).split(path.sep).join('/');

/**
 * Each folder's figures and the mutants no test fails that no comment explains.
 * @param {import('mutation-testing-report-schema').MutationTestResult} report
 * @param {string[]} [names] the folders, by default the configuration's
 */
export function scoresOf(report, names = folders) {
  return names.map((folder) => {
    const files = Object.fromEntries(
      Object.entries(report.files).filter(([name]) => {
        const file = relativeName(name);
        return (file === folder || file.startsWith(`${folder}/`)) && !leftOut.has(file);
      }),
    );
    const { metrics } = calculateMetrics(files);
    const ignored = Object.values(files).flatMap((file) =>
      file.mutants.filter((mutant) => mutant.status === 'Ignored'),
    );
    const notRun = ignored.filter((mutant) => STATIC_REASON.test(mutant.statusReason ?? '')).length;
    const explained = ignored.length - notRun;
    const detected = metrics.killed + metrics.timeout;
    const counted = detected + metrics.survived + metrics.noCoverage + explained;
    const unexplained = Object.entries(files).flatMap(([name, file]) =>
      file.mutants
        .filter((mutant) => mutant.status === 'Survived' || mutant.status === 'NoCoverage')
        .map(
          (mutant) =>
            `${relativeName(name)}:${mutant.location.start.line}:${mutant.location.start.column} ` +
            `${mutant.status} ${mutant.mutatorName} → ${JSON.stringify(mutant.replacement ?? '')}`,
        ),
    );
    return {
      folder,
      killed: metrics.killed,
      timeout: metrics.timeout,
      survived: metrics.survived,
      noCoverage: metrics.noCoverage,
      explained,
      notRun,
      score: counted === 0 ? null : (100 * detected) / counted,
      unexplained,
    };
  });
}

/**
 * The folders with more unexplained survivors than are kept: a change added code no test can fail.
 * @param {ReturnType<typeof scoresOf>} rows
 * @param {Record<string, number>} kept
 */
export const overKept = (rows, kept) =>
  rows.filter((row) => row.unexplained.length > (kept[row.folder] ?? 0));

/**
 * The folders under the bar, or with no mutant at all (a glob that matched nothing).
 * @param {ReturnType<typeof scoresOf>} rows
 */
export const underTheBar = (rows, bar = BAR) => rows.filter((row) => row.score === null || row.score < bar);

function main() {
  const file = process.argv.slice(2).find((arg) => !arg.startsWith('--')) ?? REPORT;
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const rows = scoresOf(report);
  /** @type {(value: unknown, width: number) => string} */
  const cell = (value, width) => String(value).padStart(width);
  console.log(`folder             killed timeout survived no-cover explained not-run   score (bar ${BAR} %)`);
  for (const row of rows) {
    const score = row.score === null ? 'none' : `${row.score.toFixed(2)} %`;
    console.log(
      `${row.folder.padEnd(18)} ${cell(row.killed, 6)} ${cell(row.timeout, 7)} ${cell(row.survived, 8)} ` +
        `${cell(row.noCoverage, 8)} ${cell(row.explained, 9)} ${cell(row.notRun, 7)} ${cell(score, 9)}`,
    );
  }
  const unexplained = rows.flatMap((row) => row.unexplained);
  if (unexplained.length > 0 && process.argv.includes('--list')) {
    console.log(`\nNo test fails and no comment explains ${unexplained.length} mutant(s):`);
    for (const line of unexplained) console.log(`  ${line}`);
  }
  let failed = false;
  const keptFile = process.argv.find((arg) => arg.startsWith('--kept='))?.slice('--kept='.length) ?? KEPT;
  const kept = JSON.parse(readFileSync(keptFile, 'utf8'));
  for (const row of overKept(rows, kept)) {
    failed = true;
    console.error(
      `\n${row.folder}: ${row.unexplained.length} mutant(s) no test fails and no comment explains, ` +
        `${kept[row.folder] ?? 0} kept in ${keptFile}. Kill the new ones with a test of behaviour, or ` +
        `explain them (docs/mutation-testing.md):`,
    );
    for (const line of row.unexplained) console.error(`  ${line}`);
  }
  for (const row of rows) {
    if (row.unexplained.length < (kept[row.folder] ?? 0))
      console.log(`${row.folder}: ${row.unexplained.length} left; lower it in ${keptFile}.`);
  }
  // `--require-bar` makes a folder under the bar fail, but for the folders `--not-yet=a,b` names:
  // ones newly mutated, whose survivors are still being killed. The kept survivors above stop
  // those from falling further meanwhile.
  const notYet = (process.argv.find((arg) => arg.startsWith('--not-yet='))?.slice('--not-yet='.length) ?? '')
    .split(',')
    .filter(Boolean);
  const under = underTheBar(rows);
  if (under.length > 0) {
    failed ||= process.argv.includes('--require-bar') && under.some((row) => !notYet.includes(row.folder));
    console.error(`Under the bar of ${BAR} %: ${under.map((row) => row.folder).join(', ')}`);
  }
  if (failed) process.exit(1);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
