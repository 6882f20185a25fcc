// The decisions of `npm run test:with-product` and `npm run test:next-latest`
// (scripts/test-with-product.js, which does the copying and running): what its options mean, which
// Next it takes, and how it ends. Apart from the command so that they are mutated and unit-tested
// while the command itself, side effects only, runs for real in CI.
const semver = require('semver');

/**
 * The options from the command line: which Next, and whether a failure fails the command.
 * @param {string[]} args
 */
function parseArgs(args) {
  const options = { next: 'pinned', reportOnly: false, keep: false };
  for (const arg of args) {
    if (arg === '--next=latest' || arg === '--next=pinned') options.next = arg.slice('--next='.length);
    else if (arg === '--report-only') options.reportOnly = true;
    else if (arg === '--keep') options.keep = true;
    else throw new Error(`Unknown option ${arg}: use --next=latest|pinned, --report-only, --keep.`);
  }
  return options;
}

/**
 * The newest release (no prerelease) of `pinned`'s major among `versions`; `pinned` itself when the
 * registry has none newer.
 * @param {string[]} versions
 * @param {string} pinned
 */
function newestRelease(versions, pinned) {
  // A range of the major alone: maxSatisfying leaves prereleases (canaries) and invalid versions out,
  // and finds one at least, the pinned version.
  const range = `${semver.major(pinned)}.x`;
  return /** @type {string} */ (semver.maxSatisfying([...versions, pinned], range));
}

/**
 * One line: what ran on which Next, and how each step ended.
 * @param {string} nextVersion
 * @param {{ name: string, status: number }[]} results
 */
function summary(nextVersion, results) {
  const steps = results.map(({ name, status }) => `${name} ${status === 0 ? 'passed' : 'FAILED'}`);
  return `[with-product] the example product on Next ${nextVersion}: ${steps.join(', ')}`;
}

/**
 * How the command ends: its last line, and its exit code (0 when every step passed, or when it only
 * reports).
 * @param {{ nextVersion: string, pinned: string, reportOnly: boolean }} run
 * @param {{ name: string, status: number }[]} results
 * @returns {{ line: string, exitCode: 0 | 1 }}
 */
function outcome({ nextVersion, pinned, reportOnly }, results) {
  const which = nextVersion === pinned ? ' (the pinned version)' : ` (pinned: ${pinned})`;
  const failed = results.length === 0 || results.some(({ status }) => status !== 0);
  return { line: `${summary(nextVersion, results)}${which}`, exitCode: failed && !reportOnly ? 1 : 0 };
}

module.exports = { newestRelease, outcome, parseArgs, summary };
