#!/usr/bin/env node
// Copies into a standalone server folder the packages the compiled server (dist/) needs that Next's
// own tracing left out. Next traces what its bundles require; the server outside them also requires
// packages no bundle does (prom-client, for the metrics registry). @vercel/nft, the tracer Next
// itself uses, follows dist/'s requires the same way, so nothing is listed by hand. A package Next
// traced is left as Next traced it.
// Usage: node scripts/copy-server-dependencies.js DEST   (run from the app's root, after dist/ is built)
const fs = require('node:fs');
const path = require('node:path');
const { nodeFileTrace } = require('@vercel/nft');

/** What runs in the server folder: the server, and the management listener's worker it starts by path. */
const ENTRIES = ['dist/lib/server/start.js', 'dist/lib/management/worker.js'];

/**
 * The files the entries need, relative to `root`. Next's own files are Next's trace's business:
 * followed from here, `next` would pull in its development server and the compilers it loads.
 * @param {string} root
 * @returns {Promise<Iterable<string>>}
 */
async function traceEntries(root) {
  const { fileList } = await nodeFileTrace(
    ENTRIES.map((entry) => path.join(root, entry)),
    {
      base: root,
      ignore: (file) => file.startsWith(`node_modules${path.sep}next${path.sep}`),
    },
  );
  return fileList;
}

/**
 * Copies the traced files of every package `dest` lacks, each package whole as traced.
 * @param {{ root: string, dest: string, trace?: (root: string) => Promise<Iterable<string>> }} options
 * @returns {Promise<{ copied: number, packages: string[] }>} files copied, and their packages' names
 */
async function copyServerDependencies({ root, dest, trace = traceEntries }) {
  /** Each package's decision, made at its first file: copied only when Next's trace lacks it. */
  const copying = new Map();
  let copied = 0;
  for (const file of [...(await trace(root))].sort()) {
    // node_modules/name/… or node_modules/@scope/name/…, outermost package only.
    const parts = file.split(path.sep);
    if (parts[0] !== 'node_modules' || parts.length < 3) continue;
    const packageRoot = path.join(...parts.slice(0, file.startsWith(path.join('node_modules', '@')) ? 3 : 2));
    if (!copying.has(packageRoot)) copying.set(packageRoot, !fs.existsSync(path.join(dest, packageRoot)));
    if (!copying.get(packageRoot)) continue;
    const source = path.join(root, file);
    if (!fs.statSync(source).isFile()) continue;
    const target = path.join(dest, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.copyFileSync(source, target);
    copied += 1;
  }
  const packages = [...copying].filter(([, copy]) => copy).map(([name]) => path.basename(name));
  return { copied, packages };
}

/**
 * The command's words for what it did.
 * @param {{ copied: number, packages: string[] }} result
 */
const summary = ({ copied, packages }) =>
  `Copied ${copied} files of ${packages.length} packages the server needs beyond Next's trace: ${packages.join(', ') || 'none'}.`;

module.exports = { ENTRIES, copyServerDependencies, summary, traceEntries };

if (require.main === module) {
  const dest = process.argv[2];
  (dest
    ? copyServerDependencies({ root: process.cwd(), dest })
    : Promise.reject(new Error('usage: copy-server-dependencies.js DEST'))
  ).then(
    (result) => process.stdout.write(`${summary(result)}\n`),
    (error) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
