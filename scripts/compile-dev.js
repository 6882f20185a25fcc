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

/** Where the server's sources live: tsconfig.server.json's entries and all they import. */
const FOLDERS = ['lib', 'components', 'scripts'];

/**
 * Every TypeScript source in FOLDERS, absolute, declaration files left out.
 * @param {string} root
 * @returns {string[]}
 */
function sources(root) {
  return FOLDERS.flatMap((folder) =>
    /** @type {string[]} names, not buffers: no encoding asked is utf8 */ (
      fs.readdirSync(path.join(root, folder), { recursive: true })
    )
      .filter((file) => /\.tsx?$/.test(file) && !file.endsWith('.d.ts'))
      .map((file) => path.join(root, folder, file)),
  );
}

/** In `outdir`: what the last compile read and wrote, relative to the root. */
const RECORD = '.dev-compile.json';

/**
 * Whether the last compile into `outdir` stands: made by this esbuild, each file it read (and
 * tsconfig.json, whose settings esbuild reads) older than its record, and each file it wrote still
 * there. A source that imports a new file has changed, so a source the server needs cannot be
 * added unseen.
 * @param {string} root
 * @param {string} outdir
 * @returns {boolean}
 */
function upToDate(root, outdir) {
  try {
    const record = path.join(outdir, RECORD);
    const since = fs.statSync(record).mtimeMs;
    /** @type {{ esbuild: string, read: string[], wrote: string[] }} */
    const { esbuild: by, read, wrote } = JSON.parse(String(fs.readFileSync(record)));
    return (
      by === esbuild.version &&
      [...read, 'tsconfig.json'].every((file) => fs.statSync(path.join(root, file)).mtimeMs < since) &&
      wrote.every((file) => fs.existsSync(path.join(root, file)))
    );
  } catch {
    return false; // no record, or a file gone: compile
  }
}

/**
 * Compiles the server's files into `outdir` (dist/), unless the last compile there stands (a
 * restart with nothing changed); resolves to the sources compiled, none when it stood. The JSX
 * runtime and the rest of the language come from tsconfig.json, as esbuild reads it.
 * @param {string} root
 * @param {string} outdir
 * @returns {Promise<string[]>}
 */
async function compileDev(root, outdir) {
  if (upToDate(root, outdir)) return [];
  const files = sources(root);
  const { metafile } = await esbuild
    .build({
      absWorkingDir: root,
      entryPoints: files,
      outbase: root,
      outdir,
      format: 'cjs',
      // import() as require() in a promise, as tsc writes it for CommonJS: a native import() would
      // take Node's ES module resolution, which finds no extensionless file.
      supported: { 'dynamic-import': false },
      metafile: true,
    })
    // esbuild's service process (some 60 MB) would otherwise stay for the whole dev session.
    .finally(() => esbuild.stop());
  const record = {
    esbuild: esbuild.version,
    read: files.map((file) => path.relative(root, file)),
    wrote: Object.keys(metafile.outputs),
  };
  fs.writeFileSync(path.join(outdir, RECORD), JSON.stringify(record));
  return files;
}

module.exports = { compileDev, sources, upToDate, FOLDERS, RECORD };
