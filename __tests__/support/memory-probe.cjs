// Test-only, preloaded into a server process with NODE_OPTIONS=--require: on SIGUSR2 it collects
// garbage in full and writes process.memoryUsage() to APP_SHELL_TEST_MEMORY_FILE, so the leak check
// reads the live heap rather than whatever garbage happens to be waiting. Nothing in the app loads it.
const { renameSync, writeFileSync } = require('node:fs');
const { setFlagsFromString } = require('node:v8');
const { runInNewContext } = require('node:vm');
const { isMainThread } = require('node:worker_threads');

const file = process.env.APP_SHELL_TEST_MEMORY_FILE;
// NODE_OPTIONS preloads this into worker threads too (the management listener's): only the main
// thread reads memory, and V8's flags, which are the whole process's, are set once, from there.
if (file && isMainThread) {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc');
  let reading = 0;
  process.on('SIGUSR2', () => {
    gc();
    gc();
    reading += 1;
    writeFileSync(`${file}.tmp`, JSON.stringify({ reading, ...process.memoryUsage() }));
    renameSync(`${file}.tmp`, file);
  });
}
