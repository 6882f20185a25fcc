#!/usr/bin/env node
// `npm run dev`: compiles the shell's server (./compile-dev.js) and runs it with Next in development
// mode, in this process (`exec`ed by npm, so a signal reaches the server). While esbuild compiles,
// in a process of its own, this thread loads Next and its development server, which the server
// needs first: the two overlap instead of one waiting on the other (some 0.3 s of a first start).
'use strict';

const path = require('node:path');
const { compileDev } = require('./compile-dev.js');

const root = path.join(__dirname, '..');
const compiled = compileDev(root, path.join(root, 'dist'));
try {
  require('next');
  // Next's development server, loaded by next({ dev: true }) when the server prepares it. Only a head
  // start: if a Next release moves it, nothing is warmed and the server loads what it needs itself.
  require('next/dist/server/dev/next-dev-server');
} catch {
  // Left to the server, which says what is missing if anything is.
}
compiled.then(
  () =>
    require(path.join(root, 'dist/lib/server/start.js')).runServer({
      dev: true,
      askedForWebpack: process.argv.includes('--webpack'),
    }),
  (error) => {
    console.error(`The server could not be compiled for npm run dev: ${error.message}`);
    process.exit(1);
  },
);
