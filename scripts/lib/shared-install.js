// node_modules for a copy of this checkout (the dev-server test's, the development loop bench's),
// laid out as a clean checkout has it: a folder of its own, of hard links to the installed files,
// so no second install and no second copy on disk. A symlink to the installed folder would put
// every package outside the copy, and so outside Turbopack's root, where it compiles nothing;
// next.config.ts then widens the root to hold both (lib/config/development-bundler.ts), which is
// what a worktree gets, but a copy in the system's temporary folder shares only `/` with the
// install, and under that root Turbopack cannot map the overlay's server stack frames.
// Plain CommonJS, like ./server-process.js, so tests and benchmarks alike can load it.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/**
 * @typedef {(command: string, args: string[]) => { status: number | null }} Run
 */

/** @type {Run} */
// Stryker disable next-line ObjectLiteral,StringLiteral: what cp says is no outcome; its status is.
const runQuietly = (command, args) => spawnSync(command, args, { stdio: 'ignore' });

/**
 * Gives `checkout` a node_modules of its own made of hard links to `installed`'s files (GNU cp
 * -al: links for files, the tree's own symlinks kept), or, where that fails (another file system,
 * a cp without -l), a symlink to it.
 * @param {string} checkout  the copy, with no node_modules yet
 * @param {string} installed  the node_modules to share; a symlink to one is followed
 * @param {Run} [run]
 * @returns {'hard links' | 'symlink'}  what the copy got
 */
function shareInstall(checkout, installed, run = runQuietly) {
  const source = fs.realpathSync(installed);
  const target = path.join(checkout, 'node_modules');
  if (run('cp', ['-al', source, target]).status === 0) return 'hard links';
  // What a failed cp left half made.
  fs.rmSync(target, { recursive: true, force: true });
  // Stryker disable next-line StringLiteral: the link's type matters on Windows only.
  fs.symlinkSync(source, target, 'dir');
  return 'symlink';
}

module.exports = { shareInstall };
