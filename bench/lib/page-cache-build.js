// The builds `npm run bench:page-cache` compares: one copy of the shell with a product page added
// (bench/page-cache/post.tsx as pages/post/[slug].tsx, as a team adds one), built once as
// `npm run build` builds it, then copied three times, so the three servers run the same build and
// differ only in their page cache. The server with Next's own cache starts with NEXT_OWN_CACHE
// preloaded, which hands Next its own FileSystemCache before the shell's server would hand it the
// shell's handler (as __tests__/e2e/page-cache.test.ts starts its own-cache pods).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ROOT, NEXT_BIN } = require('./builds.js');

// Outside the repository: a copy of package.json under it would be a second module of the same name
// to Jest, and a second tree of the shell's sources to every tool that walks it.
const FOLDER = path.join(os.tmpdir(), 'app-shell-bench-page-cache');
/** For NODE_OPTIONS=--require: Next's own page cache in the shell's server (the file says how). */
const NEXT_OWN_CACHE = path.join(ROOT, 'bench/page-cache/next-own-cache.js');
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
 * Builds the product copy and its three variants; returns their folders.
 * @returns {{ nextOwn: string, shellStore: string, shellDisk: string }}
 */
function buildPageCacheVariants() {
  fs.rmSync(FOLDER, { recursive: true, force: true });
  const source = path.join(FOLDER, 'built');
  fs.mkdirSync(source, { recursive: true });
  // The shell's server and handler as `npm run build` compiles them first.
  run('npm', ['run', '--silent', 'build:server'], ROOT, process.env);
  for (const entry of SHELL_ENTRIES)
    fs.cpSync(path.join(ROOT, entry), path.join(source, entry), { recursive: true, verbatimSymlinks: true });
  fs.rmSync(path.join(source, 'pages/__fixtures__'), { recursive: true, force: true });
  fs.rmSync(path.join(source, 'pages/api/__fixtures__'), { recursive: true, force: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(source, 'node_modules'), 'dir');
  fs.mkdirSync(path.join(source, 'pages/post'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'bench/page-cache/post.tsx'), path.join(source, 'pages/post/[slug].tsx'));
  // `npm run build`'s steps after the server's compile. The types are `npm run typecheck`'s (the
  // page is in its sources); `npm start` reads no file trace.
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
  /** @param {string} name */
  const copy = (name) => {
    const dir = path.join(FOLDER, name);
    fs.cpSync(source, dir, { recursive: true, verbatimSymlinks: true });
    return dir;
  };
  const nextOwn = copy('next-own');
  const file = path.join(nextOwn, '.next/required-server-files.json');
  if (typeof JSON.parse(fs.readFileSync(file, 'utf8')).config.cacheHandler === 'string')
    throw new Error(`${file} names a cacheHandler: the shell's next.config changed`);
  return { nextOwn, shellStore: copy('shell-store'), shellDisk: copy('shell-disk') };
}

module.exports = { buildPageCacheVariants, NEXT_OWN_CACHE };
