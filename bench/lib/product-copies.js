// A product's pages on the shell, as a team adds them, built once as `npm run build` builds it and
// copied once per server a bench runs, so every server runs the very same build: one copy of the
// shell's checkout (outside the repository: a copy of package.json under it would be a second module
// of the same name to Jest, and a second tree of the shell's sources to every tool that walks it),
// the test fixtures taken out, the pages laid in, built, then copied.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, NEXT_BIN } = require('./builds.js');

/** What a team's checkout holds beside node_modules (as __tests__/support/product-build.ts copies it). */
const SHELL_ENTRIES = [
  'pages',
  'components',
  'lib',
  'public',
  'scripts',
  'dist',
  'instrumentation.ts',
  'next.config.ts',
  'tsconfig.json',
  'package.json',
];

/** @param {string} file @param {string[]} args @param {string} cwd @param {NodeJS.ProcessEnv} env */
function run(file, args, cwd, env) {
  const result = spawnSync(file, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0)
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
}

/**
 * Builds the shell with `pages` (route file under pages/ → source under bench/) and returns one copy
 * of the build per name, under the system's temporary folder in `folder`.
 * @template {string} Name
 * @param {string} folder
 * @param {Record<string, string>} pages
 * @param {Name[]} names
 * @returns {Record<Name, string>}
 */
function buildProductCopies(folder, pages, names) {
  const root = path.join(os.tmpdir(), folder);
  fs.rmSync(root, { recursive: true, force: true });
  const source = path.join(root, 'built');
  fs.mkdirSync(source, { recursive: true });
  // The shell's server as `npm run build` compiles it first.
  run('npm', ['run', '--silent', 'build:server'], ROOT, process.env);
  for (const entry of SHELL_ENTRIES)
    fs.cpSync(path.join(ROOT, entry), path.join(source, entry), { recursive: true, verbatimSymlinks: true });
  fs.rmSync(path.join(source, 'pages/__fixtures__'), { recursive: true, force: true });
  fs.rmSync(path.join(source, 'pages/api/__fixtures__'), { recursive: true, force: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  for (const [route, file] of Object.entries(pages)) {
    fs.mkdirSync(path.dirname(path.join(source, 'pages', route)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, 'bench', file), path.join(source, 'pages', route));
  }
  // `npm run build`'s steps after the server's compile. The types are `npm run typecheck`'s (the
  // pages are in its sources); `npm start` reads no file trace.
  const env = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    NEXT_DIST_DIR: '.next',
    NEXT_TYPECHECK: 'off',
    NEXT_TRACES: 'off',
  };
  run(process.execPath, [NEXT_BIN, 'build', '--webpack'], source, env);
  for (const step of ['source-maps', 'carry-static', 'error-pages', 'service-worker'])
    run(process.execPath, [`dist/scripts/${step}.js`], source, env);
  /** @type {Record<string, string>} */
  const copies = {};
  for (const name of names) {
    copies[name] = path.join(root, name);
    fs.cpSync(source, copies[name], { recursive: true, verbatimSymlinks: true });
  }
  return /** @type {Record<Name, string>} */ (copies);
}

module.exports = { buildProductCopies };
