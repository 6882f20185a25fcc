// Logs are one JSON object per line: info on stdout, warnings and errors on stderr.

export type Level = 'info' | 'warn' | 'error';

/**
 * @param event  What happened, as a short stable name (`lifecycle.ready`, `health.warn`).
 * Never throws: a log call must not turn into a new failure.
 */
export function log(level: Level, event: string, fields: Record<string, unknown> = {}): void {
  let line: string;
  try {
    line = JSON.stringify({ time: new Date().toISOString(), level, event, ...fields });
  } catch {
    // A field that cannot be serialised (a cycle, a BigInt).
    line = JSON.stringify({ time: new Date().toISOString(), level, event, note: 'fields not serialisable' });
  }
  try {
    (level === 'info' ? process.stdout : process.stderr).write(`${line}\n`);
  } catch {
    // stdout closed (EPIPE): nothing more we can do, and nothing worth crashing for.
  }
}
