// Next and Sentry write to the console in their own words (`✓ Running next.config.ts took 47ms`,
// `⚠ …`, and every error a page throws, message and stack); Node prints its process warnings as
// text. In the production server every line must be one JSON object a log pipeline can parse, so
// those become JSON lines too, their words kept but scrubbed like an error report: an error's
// message can carry a token, and Next prints it whole.
import { format, types } from 'node:util';
import { scrubText } from '../reporting/scrub/text';
import { wasLogged } from './logged-errors';
import { log, type Level } from './logger';

const LEVELS: Record<'log' | 'info' | 'debug' | 'warn' | 'error' | 'trace', Level> = {
  log: 'info',
  info: 'info',
  debug: 'info',
  warn: 'warn',
  error: 'error',
  trace: 'warn',
};

// ANSI colour codes.
const COLOUR = /\u001b\[[0-9;]*m/g;
// The glyph Next puts before its messages (✓ ⚠ ⨯ ○ ▲ and the like), and the space after it (the
// rest of the spaces, trim() takes).
const GLYPH = /^\s*[^\p{L}\p{N}\s[("'`/]{1,2}\s/u;

/** The console's words as plain text, without colours or Next's leading glyph, and scrubbed. */
export function plainText(args: unknown[]): string {
  return scrubText(
    format(...args)
      .replace(COLOUR, '')
      .replace(GLYPH, '')
      .trim(),
  );
}

/**
 * How long a console line that prints an error waits for the error's report: Next prints an error
 * of a page before it hands it to instrumentation's onRequestError, and an API route's is reported
 * once its answer is done (lib/reporting/node/answered-status.ts).
 */
export const HOLD_MS = 1000;
/** Lines waiting at once at most; past it a line is written at once (never lost, never unbounded). */
export const MAX_HELD = 64;

/** An error object, from this realm or another (a bundle's, a VM context's). */
function isError(value: unknown): value is Error {
  return types.isNativeError(value) || value instanceof Error;
}

/** Whether every error among `args` has its own line (the reporter's `server.error`), which says it all. */
function allReported(errors: Error[]): boolean {
  return errors.every(wasLogged);
}

/**
 * Routes console output and process warnings to JSON lines (`console` and `process.warning`).
 * Next prints each error of a page or an API route it also hands to the reporter, two or three
 * times (its route module, its server, its API resolver), the cause only there: a console call
 * that prints an error object the reporter logged writes nothing, the `server.error` line being
 * that error's one line. Recognised by the object itself (marked when logged, ./logged-errors.ts),
 * never by its words: a line that prints an error not yet logged waits up to `holdMs` for its
 * line, and is written as before if none comes (a client error Next prints, which is not reported;
 * an error reported to Sentry, which writes no line of its own).
 */
export function captureConsole(
  target: Console = console,
  processRef: NodeJS.Process = process,
  { holdMs = HOLD_MS }: { holdMs?: number } = {},
): void {
  const held = new Set<() => void>();
  const write = (method: keyof typeof LEVELS, level: Level, args: unknown[]) => {
    const message = plainText(args);
    if (message) log(level, 'console', { method, message });
  };
  for (const [method, level] of Object.entries(LEVELS) as [keyof typeof LEVELS, Level][]) {
    target[method] = (...args: unknown[]) => {
      const errors = args.filter(isError);
      if (errors.length > 0) {
        if (allReported(errors)) return;
        if (held.size < MAX_HELD) {
          const settle = () => {
            clearTimeout(timer);
            held.delete(settle);
            if (!allReported(errors)) write(method, level, args);
          };
          const timer = setTimeout(settle, holdMs);
          // A line waiting must not keep the process up, and one still waiting at exit is written.
          timer.unref();
          held.add(settle);
          return;
        }
      }
      write(method, level, args);
    };
  }
  processRef.once('exit', () => {
    for (const settle of held) settle();
  });
  // Node's own printer of warnings is a 'warning' listener; replaced by one that writes JSON.
  processRef.removeAllListeners('warning');
  processRef.on('warning', (warning) =>
    log('warn', 'process.warning', { type: warning.name, message: scrubText(warning.message) }),
  );
}
