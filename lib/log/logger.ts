// Logs are one JSON object per line, written by pino: debug and info on stdout, warnings and
// errors on stderr (./destination.ts). Every line has `level` (a word), `time` (ISO 8601) and
// `event` (a short stable name); docs/operations.md lists the events and their fields.
import pino, { type Level as PinoLevel, type LevelWithSilent, type Logger } from 'pino';
import { processSlot } from '../process/slots';
import { guardedDestination } from './destination';

export type Level = Extract<PinoLevel, 'debug' | 'info' | 'warn' | 'error'>;
export type LogLevel = LevelWithSilent;

/**
 * One logger per process, whatever Next bundles: each bundle has its own copy of this module, and
 * LOG_LEVEL, set once by the server, must hold for all of them.
 */
const loggerSlot = processSlot<Logger>('logger');
let shared: Logger | undefined;

function createLogger(): Logger {
  return pino(
    {
      level: 'info',
      // No pid or hostname: the orchestrator labels each line with its pod.
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    pino.multistream(
      [
        { level: 'trace', stream: guardedDestination(() => process.stdout) },
        { level: 'warn', stream: guardedDestination(() => process.stderr) },
      ],
      // Each line to the one stream of the highest level it reaches.
      { dedupe: true },
    ),
  );
}

function logger(): Logger {
  shared ??= loggerSlot.getOrCreate(createLogger);
  return shared;
}

/** Sets the process's log level (LOG_LEVEL): lines below it are not written. */
export function setLogLevel(level: LogLevel): void {
  logger().level = level;
}

/** Whether a line at `level` would be written: to skip building fields nobody will read. */
export function logEnabled(level: Level): boolean {
  return logger().isLevelEnabled(level);
}

/**
 * @param event  What happened, as a short stable name (`lifecycle.ready`, `health.warn`).
 * Never throws: a log call must not turn into a new failure. A field that cannot be serialised
 * as JSON (a cycle) is written as pino's safe serialiser writes it (`"[Circular]"`).
 */
export function log(level: Level, event: string, fields: Record<string, unknown> = {}): void {
  try {
    logger()[level]({ event, ...fields });
  } catch {
    // A getter that throws, or a destination that does: nothing more can be said about it here.
  }
}

/** How many causes deep an error's `cause` chain is followed: the rest is left out. */
export const MAX_CAUSE_DEPTH = 5;

/** One link of an error's cause chain: what it is, never its stack (the error's own says where). */
export interface CauseFields {
  type: string;
  message: string;
  code?: string;
  cause?: CauseFields;
}

/** An error's type, message and code (`ECONNREFUSED`), as errorFields and each cause give them. */
function describedError(error: unknown): CauseFields {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return {
      type: error.name || error.constructor?.name || 'Error',
      message: error.message,
      ...(typeof code === 'string' ? { code } : {}),
    };
  }
  return { type: typeof error, message: typeof error === 'string' ? error : describe(error) };
}

/**
 * The chain of `error.cause`, each link as its type, message and code, at most MAX_CAUSE_DEPTH
 * deep (a cycle, or a chain a stranger's input made long, ends there); undefined without a cause.
 * A `fetch failed` says why only in its cause (`ECONNREFUSED`). Never throws: a link that cannot
 * be read ends the chain.
 */
export function causeChain(error: unknown, depth = MAX_CAUSE_DEPTH): CauseFields | undefined {
  try {
    if (depth <= 0) return undefined;
    // (A primitive has no cause; null and undefined have nothing at all.)
    const link: unknown = (error as { cause?: unknown } | null | undefined)?.cause;
    if (link === undefined) return undefined;
    const described = describedError(link);
    const further = causeChain(link, depth - 1);
    return further ? { ...described, cause: further } : described;
  } catch {
    // A link that cannot be read (a throwing getter) ends the chain: below.
  }
  return undefined;
}

/**
 * An error as a log field: its type, message and stack (and code, and the chain of its causes),
 * never just `String(error)`.
 */
export function errorFields(error: unknown): {
  type: string;
  message: string;
  stack?: string;
  code?: string;
  cause?: CauseFields;
} {
  try {
    const { type, message, code } = describedError(error);
    const stack = error instanceof Error ? error.stack : undefined;
    const cause = causeChain(error);
    return {
      type,
      message,
      ...(stack ? { stack } : {}),
      ...(code !== undefined ? { code } : {}),
      ...(cause ? { cause } : {}),
    };
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
