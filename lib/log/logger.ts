// Logs are one JSON object per line, written by pino: debug and info on stdout, warnings and
// errors on stderr (./destination.ts). Every line has `level` (a word), `time` (ISO 8601) and
// `event` (a short stable name); docs/operations.md lists the events and their fields.
import pino, { type Level as PinoLevel, type LevelWithSilent, type Logger } from 'pino';
import { processSlot } from '../process/slots';
import { guardedDestination, type LineDestination } from './destination';

export type Level = Extract<PinoLevel, 'debug' | 'info' | 'warn' | 'error'>;
export type LogLevel = LevelWithSilent;

/**
 * One logger per process, whatever Next bundles: each bundle has its own copy of this module, and
 * LOG_LEVEL, set once by the server, must hold for all of them.
 */
const loggerSlot = processSlot<Logger>('logger');
let shared: Logger | undefined;

/** Where lines go, once per process as the logger is: info and debug to stdout, the rest to stderr. */
interface Destinations {
  out: LineDestination;
  err: LineDestination;
}
// Stryker disable next-line StringLiteral: any name does, so long as no other slot has it.
const destinationsSlot = processSlot<Destinations>('log-destinations');
let destinationsHere: Destinations | undefined;
/** The process's destinations, looked up on globalThis once by this copy of the module: every request line asks. */
const destinations = () =>
  (destinationsHere ??= destinationsSlot.getOrCreate(() => ({
    out: guardedDestination(() => process.stdout),
    err: guardedDestination(() => process.stderr),
  })));

function createLogger(): Logger {
  const { out, err } = destinations();
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
        { level: 'trace', stream: out },
        { level: 'warn', stream: err },
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

/**
 * The production server's choice (lib/server/start.ts): info and debug lines, the request lines
 * among them, go out in one write per turn of the event loop (./destination.ts `batch`); warnings and
 * errors are always written at once.
 */
export function batchLogLines(on: boolean): void {
  destinations().out.batch(on);
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

/** A request's line (lib/server/observe-requests.ts): what `log(level, 'http.request', …)` writes. */
export interface RequestLine {
  method: string;
  path: string;
  route: string;
  status: number;
  durationMs: number;
  aborted?: true | undefined;
  reference?: string | undefined;
}

/**
 * The one line written for every request, made by hand: the very text pino makes of
 * `log(level, 'http.request', fields)` (its keys in that order, each string as JSON.stringify
 * writes it), without an object spread and pino's walk over its keys for each request. The caller
 * checks `logEnabled(level)` first. Never throws.
 */
export function logRequest(level: 'info' | 'error', line: RequestLine): void {
  try {
    const { out, err } = destinations();
    (level === 'error' ? err : out).write(
      `{"level":"${level}","time":"${isoNow()}","event":"http.request","method":${quoted(line.method)},` +
        `"path":${quoted(line.path)},"route":${quoted(line.route)},"status":${JSON.stringify(line.status)},` +
        `"durationMs":${JSON.stringify(line.durationMs)}${line.aborted ? ',"aborted":true' : ''}` +
        `${line.reference === undefined ? '' : `,"reference":${JSON.stringify(line.reference)}`}}\n`,
    );
  } catch {
    // As log's.
  }
}

/** Texts kept as JSON strings: a request line's method, route and path repeat from request to request. */
export const QUOTED_KEPT = 1024;
const quotedTexts = new Map<string, string>();

/** How many texts are kept now: for the test of the bound. */
export const quotedKept = (): number => quotedTexts.size;

/** `text` as JSON.stringify writes it, from the ones kept when it was written before. */
function quoted(text: string): string {
  let json = quotedTexts.get(text);
  // Stryker disable next-line ConditionalExpression: a cost only; the text is written the same.
  if (json === undefined) {
    json = JSON.stringify(text);
    // Bounded: a stranger's endless distinct paths only ever empty it.
    if (quotedTexts.size >= QUOTED_KEPT) quotedTexts.clear();
    quotedTexts.set(text, json);
  }
  return json;
}

let isoAt = NaN;
// Stryker disable next-line StringLiteral: never read before the first line sets it (isoAt is NaN).
let isoText = '';
let secondAt = NaN;
// Stryker disable next-line StringLiteral: as isoText.
let secondText = '';

/**
 * The time as pino's isoTime writes it (`Date#toISOString`), made once a millisecond however many
 * lines that millisecond has, and from the second's text, made once a second, for the others: at
 * a server-rendered page's rate nearly every request line has a millisecond of its own, and a
 * Date's whole formatting for each was a request's costliest step of the line.
 */
function isoNow(): string {
  const at = Date.now();
  // Stryker disable next-line ConditionalExpression: a cost only; the time is the same.
  if (at === isoAt) return isoText;
  isoAt = at;
  const millis = ((at % 1000) + 1000) % 1000;
  const second = at - millis;
  // Stryker disable next-line ConditionalExpression: a cost only; the second's text is made the same.
  if (second !== secondAt) {
    secondAt = second;
    // Everything up to the fraction's digits (`2026-12-04T18:41:05.`; a year past 9999 is longer).
    secondText = new Date(second).toISOString().slice(0, -4);
  }
  isoText = `${secondText}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
  return isoText;
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
