// Logs are one JSON object per line: info on stdout, warnings and errors on stderr.

/** @typedef {'info' | 'warn' | 'error'} Level */

/**
 * @param {Level} level
 * @param {string} event  What happened, as a short stable name (`lifecycle.ready`, `health.warn`).
 * @param {Record<string, unknown>} [fields]
 */
function log(level, event, fields = {}) {
  let line;
  try {
    line = JSON.stringify({ time: new Date().toISOString(), level, event, ...fields });
  } catch {
    // A field that cannot be serialised (a cycle, a BigInt) must not turn a log call into a crash.
    line = JSON.stringify({ time: new Date().toISOString(), level, event, note: 'fields not serialisable' });
  }
  try {
    (level === 'info' ? process.stdout : process.stderr).write(`${line}\n`);
  } catch {
    // stdout closed (EPIPE): nothing more we can do, and nothing worth crashing for.
  }
}

module.exports = { log };
