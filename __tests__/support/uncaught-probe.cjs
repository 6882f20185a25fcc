// Test-only preload (NODE_OPTIONS=--require …, with UNCAUGHT_PROBE_FILE set): counts the process's
// uncaught exceptions and writes the count to that file when the process exits, so a test can see
// an error nothing handled even when the process's own output is gone. The server already handles
// uncaught exceptions; one more listener changes nothing it does.
let count = 0;
process.on('uncaughtException', () => {
  count += 1;
});
const file = process.env.UNCAUGHT_PROBE_FILE;
process.on('exit', () => {
  if (file) require('node:fs').writeFileSync(file, String(count));
});
