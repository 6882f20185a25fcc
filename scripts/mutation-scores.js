// The mutation score of each folder StrykerJS mutates, from its JSON report (docs/mutation-testing.md).
// `node scripts/mutation-scores.js [report.json] [--list] [--kept=file.json] [--require-bar]
// [--not-yet=folder,folder]`; `--list` names every unexplained survivor.
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
// CommonJS, and the configuration read only when run as a command: so the unit tests call `run`
// in their own process, where StrykerJS sees which of them reach each line (Jest loads no `.mjs`).
const { readFileSync } = require('node:fs');
const path = require('node:path');
const { calculateMetrics } = require('mutation-testing-metrics');

const BAR = 85;
const REPORT = 'reports/mutation/mutation.json';
/** Per folder, how many mutants no test fails and no comment explains are known and allowed. */
const KEPT = 'scripts/mutation-survivors.json';
const STATIC_REASON = /^Static mutant/;

/**
 * The folders a configuration's `mutate` list names (`lib/fleet/**\/*.ts` → `lib/fleet`); a file it
 * leaves out (`!lib/server/start.ts`) is left out here too, as Stryker's incremental record keeps
 * the results of a file it mutated before.
 * @param {readonly string[]} mutate
 */
function foldersOf(mutate) {
  return {
    folders: mutate.filter((glob) => !glob.startsWith('!')).map((glob) => glob.split('/**')[0]),
    /** @param {string} file */
    leftOut: (file) => mutate.includes(`!${file}`),
  };
}

/**
 * @param {string} name
 * @param {string} cwd
 */
const relativeName = (name, cwd) =>
  (path.isAbsolute(name) ? path.relative(cwd, name) : name).split(path.sep).join('/');

/**
 * Each folder's figures and the mutants no test fails that no comment explains.
 * @param {import('mutation-testing-report-schema').MutationTestResult} report
 * @param {readonly string[]} mutate the configuration's `mutate` list
 * @param {string} [cwd] what the report's absolute file names are relative to
 */
function scoresOf(report, mutate, cwd = process.cwd()) {
  const { folders, leftOut } = foldersOf(mutate);
  return folders.map((folder) => {
    const files = Object.fromEntries(
      Object.entries(report.files).filter(([name]) => {
        const file = relativeName(name, cwd);
        return (file === folder || file.startsWith(`${folder}/`)) && !leftOut(file);
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
            `${relativeName(name, cwd)}:${mutant.location.start.line}:${mutant.location.start.column} ` +
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

/** @typedef {ReturnType<typeof scoresOf>[number]} Row */

/**
 * The folders with more unexplained survivors than are kept: a change added code no test can fail.
 * @param {Row[]} rows
 * @param {Record<string, number>} kept
 */
const overKept = (rows, kept) => rows.filter((row) => row.unexplained.length > (kept[row.folder] ?? 0));

/**
 * The folders under the bar, or with no mutant at all (a glob that matched nothing).
 * @param {Row[]} rows
 */
const underTheBar = (rows, bar = BAR) => rows.filter((row) => (row.score ?? 0) < bar);

/**
 * The table of scores, a line a folder.
 * @param {Row[]} rows
 */
function table(rows) {
  /** @type {(value: unknown, width: number) => string} */
  const cell = (value, width) => String(value).padStart(width);
  return [
    `folder             killed timeout survived no-cover explained not-run   score (bar ${BAR} %)`,
    ...rows.map((row) => {
      const score = row.score === null ? 'none' : `${row.score.toFixed(2)} %`;
      return (
        `${row.folder.padEnd(18)} ${cell(row.killed, 6)} ${cell(row.timeout, 7)} ${cell(row.survived, 8)} ` +
        `${cell(row.noCoverage, 8)} ${cell(row.explained, 9)} ${cell(row.notRun, 7)} ${cell(score, 9)}`
      );
    }),
  ];
}

/**
 * @typedef {object} Io
 * @property {(line: string) => void} log
 * @property {(line: string) => void} error
 * @property {(file: string) => unknown} readJson
 */

/** @type {Io} */
const CONSOLE = {
  log: (line) => console.log(line),
  error: (line) => console.error(line),
  readJson: (file) => JSON.parse(readFileSync(file, 'utf8')),
};

/**
 * The command: prints the scores and says what fails.
 * @param {readonly string[]} args the command's arguments
 * @param {readonly string[]} mutate the configuration's `mutate` list
 * @returns {0 | 1} the exit code
 */
function run(args, mutate, io = CONSOLE) {
  /** @param {string} name */
  const option = (name) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const file = args.find((arg) => !arg.startsWith('--')) ?? REPORT;
  const rows = scoresOf(/** @type {any} */ (io.readJson(file)), mutate);
  for (const line of table(rows)) io.log(line);
  const unexplained = rows.flatMap((row) => row.unexplained);
  if (unexplained.length > 0 && args.includes('--list')) {
    io.log(`\nNo test fails and no comment explains ${unexplained.length} mutant(s):`);
    for (const line of unexplained) io.log(`  ${line}`);
  }
  let failed = false;
  const keptFile = option('kept') ?? KEPT;
  const kept = /** @type {Record<string, number>} */ (io.readJson(keptFile));
  for (const row of overKept(rows, kept)) {
    failed = true;
    io.error(
      `\n${row.folder}: ${row.unexplained.length} mutant(s) no test fails and no comment explains, ` +
        `${kept[row.folder] ?? 0} kept in ${keptFile}. Kill the new ones with a test of behaviour, or ` +
        `explain them (docs/mutation-testing.md):`,
    );
    for (const line of row.unexplained) io.error(`  ${line}`);
  }
  for (const row of rows) {
    if (row.unexplained.length < (kept[row.folder] ?? 0))
      io.log(`${row.folder}: ${row.unexplained.length} left; lower it in ${keptFile}.`);
  }
  // `--require-bar` makes a folder under the bar fail, but for the folders `--not-yet=a,b` names:
  // ones newly mutated, whose survivors are still being killed. The kept survivors above stop
  // those from falling further meanwhile.
  const notYet = new Set(option('not-yet')?.split(','));
  const under = underTheBar(rows);
  if (under.length > 0) {
    failed ||= args.includes('--require-bar') && under.some((row) => !notYet.has(row.folder));
    io.error(`Under the bar of ${BAR} %: ${under.map((row) => row.folder).join(', ')}`);
  }
  return failed ? 1 : 0;
}

module.exports = { BAR, KEPT, REPORT, overKept, run, scoresOf, underTheBar };

if (require.main === module) {
  // The configuration is an ES module: Node 22 and 24 require() it.
  const { default: config } = require('../stryker.config.mjs');
  process.exitCode = run(process.argv.slice(2), /** @type {string[]} */ (config.mutate));
}
