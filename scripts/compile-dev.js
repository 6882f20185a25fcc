#!/usr/bin/env node
// `npm run dev`'s compile of the shell's server (./dev.js runs it): every TypeScript file of the
// folders the server's code lives in, to the places in dist/ where `npm run build:server` puts them,
// as CommonJS, types stripped and none checked. Written by esbuild in one call, in a process of its
// own, in about a third of a second; `tsc`, even with --noCheck, parses every declaration file the
// server's imports reach (1,104 files, 230,000 lines here) and took some 2 s of a first start that
// bare `next dev` does not have. Types are `npm run typecheck`'s and `npm run build`'s to check, as
// bare `next dev` checks none; production builds keep `tsc` (tsconfig.server.json).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const ROOT = path.resolve(__dirname, '..');

/** Where the server's sources live: tsconfig.server.json's entries and all they import. */
const FOLDERS = ['lib', 'components', 'scripts'];

/**
 * Every TypeScript source in FOLDERS, absolute and sorted, declaration files left out.
 * @param {string} root
 * @returns {string[]}
 */
function sources(root) {
  return FOLDERS.flatMap((folder) =>
    fs
      .readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
      .map((file) => path.join(root, folder, file)),
  ).sort();
}

/** In `outdir`: which sources the last compile took, relative to the root. */
const RECORD = '.dev-compile.json';

/**
 * Whether the last compile into `outdir` stands: each of its sources (and tsconfig.json, whose settings esbuild reads)
 * older than its record, and each output there. A source that imports a new file has changed, so
 * a source the server needs cannot be added unseen.
 */
function upToDate(/** @type {string} */ root, /** @type {string} */ outdir) {
  try {
    const record = path.join(outdir, RECORD);
    const since = fs.statSync(record).mtimeMs;
    const sources = JSON.parse(fs.readFileSync(record, 'utf8'));
    return (
      Array.isArray(sources) &&
      sources.length > 0 &&
      [...sources, 'tsconfig.json'].every((source) => fs.statSync(path.join(root, source)).mtimeMs < since) &&
      sources.every((source) => fs.existsSync(path.join(outdir, source.replace(/\.tsx?$/, '.js'))))
    );
  } catch {
    return false; // no record, or a source gone: compile
  }
}

/**
 * Compiles the server's files into `outdir` (dist/), unless the last compile there stands (a
 * restart with nothing changed); resolves to the sources compiled, none when it stood.
 */
async function compileDev(/** @type {string} */ root = ROOT, outdir = path.join(root, 'dist')) {
  if (upToDate(root, outdir)) return [];
  const files = sources(root);
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: files,
    outbase: root,
    outdir,
    bundle: false,
    format: 'cjs',
    platform: 'node',
    target: 'es2022',
    jsx: 'automatic',
    // import() as require() in a promise, as tsc writes it for CommonJS: a native import() would take
    // Node's ES module resolution, which finds no extensionless file.
    supported: { 'dynamic-import': false },
    logLevel: 'warning',
  });
  fs.writeFileSync(
    path.join(outdir, RECORD),
    JSON.stringify(files.map((/** @type {string} */ file) => path.relative(root, file))),
  );
  return files;
}

module.exports = { compileDev, sources, FOLDERS, RECORD };
