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

/** What a batching destination holds at most; a line that takes it past this writes them all at once. */
export const BATCH_MAX_CHARS = 64 * 1024;

export interface LineDestination {
  /** One whole line (pino's, or one made by hand), with its newline. */
  write: (line: string) => void;
  /**
   * On: lines wait for the end of the event loop's turn that made them and go out in one write
   * (one system call for every line of a burst of requests, not one each), or at once past
   * BATCH_MAX_CHARS, and whatever waits is written as the process exits. Off (the default): each
   * line is written as it comes. What a SIGKILL can lose is what one turn made, not yet written.
   */
  batch: (on: boolean) => void;
  /** Writes what waits, now. */
  flush: () => void;
}

/**
 * A destination pino can write to: whatever stream `pick()` gives at the time of each write, so a
 * test that replaces process.stdout's write still sees the lines.
 */
export function guardedDestination(pick: () => NodeJS.WritableStream): LineDestination {
  let waiting = '';
  let batching = false;
  // Stryker disable next-line BooleanLiteral: batch() flushes, which clears it, before any batched write.
  let scheduled = false;
  let exitHooked = false;
  const flush = () => {
    scheduled = false;
    if (waiting === '') return;
    const text = waiting;
    waiting = '';
    writeGuarded(pick(), text);
  };
  return {
    write: (line) => {
      if (!batching) return writeGuarded(pick(), line);
      waiting += line;
      if (waiting.length >= BATCH_MAX_CHARS) return flush();
      // Stryker disable next-line ConditionalExpression,BooleanLiteral: a cost only; a second flush in the turn finds nothing.
      if (scheduled) return;
      // Stryker disable next-line BooleanLiteral: as above.
      scheduled = true;
      // After this turn's I/O callbacks, before the next turn's: a burst of answers, one write. Not
      // holding the process open: whatever waits at exit is written by the 'exit' hook below.
      setImmediate(flush).unref();
    },
    batch: (on) => {
      flush();
      batching = on;
      if (!on || exitHooked) return;
      exitHooked = true;
      // Writes to a file or a pipe are synchronous in Node on Linux, so this is written in full.
      process.on('exit', flush);
    },
    flush,
  };
}
