// Where log lines go: stdout, or stderr for warnings and errors, through a guard that a log pipe
// whose reader has gone cannot turn into a crash or a spin.

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

/** Writes text (whole lines) unless the stream has failed before; never throws, never writes about a failure. */
export function writeGuarded(stream: NodeJS.WritableStream, text: string): void {
  guardStream(stream);
  if (isBroken(stream)) return;
  try {
    stream.write(text);
  } catch {
    markBroken(stream);
  }
}

/**
 * A destination pino can write to: whatever stream `pick()` gives at the time of each write, so a
 * test that replaces process.stdout's write still sees the lines.
 */
export function guardedDestination(pick: () => NodeJS.WritableStream): { write: (line: string) => void } {
  return { write: (line) => writeGuarded(pick(), line) };
}
