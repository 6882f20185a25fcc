// Logs are one JSON object per line: info on stdout, warnings and errors on stderr.

export type Level = 'info' | 'warn' | 'error';

/**
 * Streams whose write failed (EPIPE once a log collector or `| head` has gone). A failed write
 * arrives later as an 'error' event; without a listener it becomes an uncaught exception, whose
 * handler logs again, which fails again: the process spun at 100 % CPU and never exited. Errors
 * are absorbed here, and nothing more is written to a stream that failed. The marks are on the
 * stream itself, under Symbol.for keys: one listener per stream, however many copies of this module
 * there are (each of Next's bundles has one, and so does each test file).
 */
const GUARDED = Symbol.for('app-shell.log.guarded');
const BROKEN = Symbol.for('app-shell.log.broken');
type Marked = NodeJS.WritableStream & { [GUARDED]?: true; [BROKEN]?: true };

const isBroken = (stream: NodeJS.WritableStream) => (stream as Marked)[BROKEN] === true;
const markBroken = (stream: NodeJS.WritableStream) => {
  (stream as Marked)[BROKEN] = true;
};

/** Absorbs the stream's write errors, once per stream; writes nothing itself. */
export function guardStream(stream: NodeJS.WritableStream): void {
  const marked = stream as Marked;
  if (marked[GUARDED]) return;
  marked[GUARDED] = true;
  stream.on('error', () => markBroken(stream));
}

/** Writes a line unless the stream has failed before; never throws, never writes about a failure. */
export function writeLine(stream: NodeJS.WritableStream, line: string): void {
  guardStream(stream);
  if (isBroken(stream)) return;
  try {
    stream.write(`${line}\n`);
  } catch {
    markBroken(stream);
  }
}

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
  writeLine(level === 'info' ? process.stdout : process.stderr, line);
}

/** An error as a log field: its type, message and stack (and code), never just `String(error)`. */
export function errorFields(error: unknown): {
  type: string;
  message: string;
  stack?: string;
  code?: string;
} {
  try {
    if (error instanceof Error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        type: error.name || error.constructor?.name || 'Error',
        message: error.message,
        ...(error.stack ? { stack: error.stack } : {}),
        ...(typeof code === 'string' ? { code } : {}),
      };
    }
    return { type: typeof error, message: typeof error === 'string' ? error : describe(error) };
  } catch {
    return { type: 'unknown', message: 'the error could not be described' };
  }
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value); // a cycle, a BigInt
  }
}
