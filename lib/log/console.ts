// Next and Sentry write to the console in their own words (`✓ Running next.config.ts took 47ms`,
// `⚠ …`, and every error a page throws, message and stack); Node prints its process warnings as
// text. In the production server every line must be one JSON object a log pipeline can parse, so
// those become JSON lines too, their words kept but scrubbed like an error report: an error's
// message can carry a token, and Next prints it whole.
import { format } from 'node:util';
import { scrubText } from '../reporting/scrub/text';
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

/** Routes console output and process warnings to JSON lines (`console` and `process.warning`). */
export function captureConsole(target: Console = console, processRef: NodeJS.Process = process): void {
  for (const [method, level] of Object.entries(LEVELS) as [keyof typeof LEVELS, Level][]) {
    target[method] = (...args: unknown[]) => {
      const message = plainText(args);
      if (message) log(level, 'console', { method, message });
    };
  }
  // Node's own printer of warnings is a 'warning' listener; replaced by one that writes JSON.
  processRef.removeAllListeners('warning');
  processRef.on('warning', (warning) =>
    log('warn', 'process.warning', { type: warning.name, message: scrubText(warning.message) }),
  );
}
