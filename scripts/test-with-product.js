// `npm run test:with-product` and `npm run test:next-latest`: the shell with the example product
// laid over it (examples/product/), as a product team's checkout is, and its unit and browser tests
// run there unedited. With `--next=latest`, on the newest Next release of the pinned major instead of
// the pinned one, so an upgrade that breaks the shell is known before a product team finds it.
// `--report-only` (CI, for the newest release) prints what it found and exits 0: a new Next release
// must not fail a run of code that did not change; the pinned version is what must pass, and CI runs
// it too (so a newest release that is the pinned one is not run twice).
// Side effects only (a copy of the checkout, an install, the suites), which CI runs for real every
// time: left out of mutation testing (stryker.config.mjs); its decisions are ./lib/with-product.js.
const { spawnSync } = require('node:child_process');
const { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');
const semver = require('semver');
const { layExampleProduct } = require('./lib/example-product');
const { newestRelease, outcome, parseArgs } = require('./lib/with-product');

const ROOT = path.join(__dirname, '..');
/** The packages that move with Next's version (docs/toolchain.md). */
const NEXT_PACKAGES = ['next', '@next/env', 'eslint-config-next'];
/** What runs in the copy: the unit tests, then the browser tests (which build what they serve). */
/** @type {[string, string[]][]} */
const STEPS = [
  ['unit tests', ['run', 'test:unit']],
  ['browser tests', ['run', 'test:e2e']],
];

/**
 * The files a clean clone with this working tree's changes holds: tracked, and new ones not ignored.
 * @param {string} root
 * @returns {string[]}
 */
function checkoutFiles(root) {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  // (A tracked file deleted in the working tree is not in the clone this stands for.)
  return listed.stdout.split('\0').filter((file) => file && existsSync(path.join(root, file)));
}

/**
 * Runs `command` in `dir` with the output shown; its exit status.
 * @param {string} dir
 * @param {string} command
 * @param {string[]} args
 * @returns {number}
 */
function run(dir, command, args) {
  process.stdout.write(`\n[with-product] ${command} ${args.join(' ')}\n`);
  const result = spawnSync(command, args, { cwd: dir, stdio: 'inherit' });
  return result.status ?? 1;
}

/** @param {string[]} args */
function main(args) {
  const options = parseArgs(args);
  const pinned = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies.next;
  const dir = mkdtempSync(path.join(tmpdir(), 'app-shell-with-product-'));
  let nextVersion = pinned;
  /** @type {{ name: string, status: number }[]} */
  const results = [];
  try {
    for (const file of checkoutFiles(ROOT)) {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      cpSync(path.join(ROOT, file), path.join(dir, file), { verbatimSymlinks: true });
    }
    layExampleProduct(dir, { proxy: true });
    // A clone is a repository: some tests copy their checkout from `git ls-files`, as this does.
    const git = ['-c', 'user.name=test-with-product', '-c', 'user.email=test-with-product@localhost'];
    for (const gitArgs of [
      ['init', '-q'],
      ['add', '-A'],
      [...git, 'commit', '-qm', 'the shell with the example product'],
    ])
      if (spawnSync('git', gitArgs, { cwd: dir }).status !== 0)
        throw new Error(`git ${gitArgs.join(' ')} failed`);
    if (options.next === 'latest') {
      const listed = spawnSync('npm', ['view', 'next', 'versions', '--json'], { cwd: dir, encoding: 'utf8' });
      if (listed.status !== 0) throw new Error(`npm view next versions failed: ${listed.stderr}`);
      nextVersion = newestRelease(JSON.parse(listed.stdout), pinned);
      if (options.reportOnly && nextVersion === pinned) {
        process.stdout.write(
          `[with-product] the newest Next ${semver.major(pinned)} release is the pinned ${pinned}: npm run test:with-product tests it\n`,
        );
        return 0;
      }
      const install = ['install', '--save-exact', '--no-audit', '--no-fund'];
      const packages = NEXT_PACKAGES.map((name) => `${name}@${nextVersion}`);
      results.push({
        name: `npm install Next ${nextVersion}`,
        status: run(dir, 'npm', [...install, ...packages]),
      });
    } else {
      // The pinned packages are this checkout's own installation.
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    }
    if (results.every(({ status }) => status === 0))
      for (const [name, npmArgs] of STEPS) {
        const status = run(dir, 'npm', npmArgs);
        results.push({ name, status });
        if (status !== 0) break;
      }
  } catch (error) {
    results.push({
      name: `setting up (${error instanceof Error ? error.message : String(error)})`,
      status: 1,
    });
  } finally {
    if (!options.keep) rmSync(dir, { recursive: true, force: true });
  }
  const { line, exitCode } = outcome({ nextVersion, pinned, reportOnly: options.reportOnly }, results);
  process.stdout.write(`\n${line}\n`);
  return exitCode;
}

module.exports = { main };

if (require.main === module) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
