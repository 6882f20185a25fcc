// What Sentry's ingest (Relay) rejects or drops, checked before an envelope takes room in the report
// queue and in the project's quota. Each rule names the file of getsentry/relay it comes from; the
// tests take a case from each. Only what the browser SDK sends is checked (./envelope.ts forwards
// nothing else): the envelope header, events, transactions and sessions. What Relay decides from
// its own clock (a session more than 5 days old or a minute ahead, after correcting the sender's
// clock by `sent_at`) or its project settings is left to Relay.

/**
 * A UUID as Relay's ids parse one (uuid's `Uuid::parse_str`): 32 hex digits, bare or in the
 * hyphenated 8-4-4-4-12 form. Event ids (relay-event-schema/src/protocol/event.rs, `EventId`),
 * session ids (relay-event-schema/src/protocol/session.rs, `sid`) and trace ids
 * (relay-event-schema/src/protocol/contexts/trace.rs, `TraceId`). (The braced and `urn:uuid:` forms
 * it also reads are never written by an SDK, and are refused.)
 */
const UUID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;
/** A span id: 16 hex digits, not all zero (relay-event-schema/src/protocol/contexts/trace.rs, `SpanId`). */
const SPAN_ID = /^[0-9a-f]{16}$/i;
/**
 * An RFC 3339 date and time, as chrono reads `DateTime<Utc>` (an offset with or without its colon).
 * Fractional seconds of any length: chrono reads the first nine digits and skips the rest
 * (chrono src/format/scan.rs, `nanosecond`).
 */
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|[+-]\d{2}:?\d{2})$/;
const NANOS_PER_SECOND = 1_000_000_000n;
/**
 * The last moment Relay keeps an event's time: the end of year 9999 (relay-event-schema
 * src/protocol/types.rs, `Timestamp::from_value`: "timestamp out of range" past it). A time in
 * milliseconds sent as seconds lands past it.
 */
export const LAST_EVENT_NANOS = 253_402_300_800n * NANOS_PER_SECOND - 1n;
/** A session's status Relay keeps (relay-event-schema/src/protocol/session.rs; any other is `Unknown`, dropped). */
const SESSION_STATUSES: ReadonlySet<string> = new Set([
  'ok',
  'exited',
  'crashed',
  'abnormal',
  'errored',
  'unhandled',
]);
/** What a release may not be (sentry-release-parser's `validate_release`, which Relay's session processing calls). */
const MAX_RELEASE_CHARS = 200;
const RESTRICTED_RELEASES: ReadonlySet<string> = new Set(['.', '..', 'latest']);
const RELEASE_BAD_CHARACTERS = /[\\/\r\n\t\f\0]/;

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const isUuid = (value: unknown): boolean => typeof value === 'string' && UUID.test(value);

export const isSpanId = (value: unknown): boolean =>
  typeof value === 'string' && SPAN_ID.test(value) && !/^0+$/.test(value);

/** The same id, whichever of its two spellings: for comparing an event's id with its envelope's. */
// Stryker disable next-line MethodExpression: upper or lower case, both ids are folded the same way.
const uuidKey = (value: string) => value.replaceAll('-', '').toLowerCase();

/**
 * Nanoseconds since the epoch of an RFC 3339 text, or null when it is none or names no real moment:
 * exact, as chrono's `DateTime` is, where a JavaScript Date keeps milliseconds only (two times
 * 100 µs apart are one instant to Date.parse and two to Relay).
 */
function rfc3339Nanos(value: string): bigint | null {
  const parts = RFC_3339.exec(value);
  if (!parts) return null;
  const [, year, month, day, hour, minute, second] = parts.map(Number) as number[];
  // V8's Date.parse takes a day past its month's end (Feb 30) and 24:00, rolling them over into the
  // next day; chrono refuses both. (It refuses a 13th month or a 60th minute itself, and reads every
  // form the pattern lets through: a space for T, an offset without its colon.)
  // (setUTCFullYear, not Date.UTC, which reads the years 0-99 as 1900-1999.)
  const moment = new Date(0);
  moment.setUTCFullYear(year!, month! - 1, day);
  moment.setUTCHours(hour!, minute, second);
  if (moment.getUTCDate() !== day) return null;
  // The whole seconds with the offset applied, then the fraction's first nine digits exactly.
  const wholeMs = Date.parse(parts[7] === undefined ? value : value.replace(`.${parts[7]}`, ''));
  if (Number.isNaN(wholeMs)) return null;
  const fraction = (parts[7] ?? '').slice(0, 9).padEnd(9, '0');
  return BigInt(wholeMs / 1000) * NANOS_PER_SECOND + BigInt(fraction);
}

/** An RFC 3339 date and time: `sent_at` (relay-server/src/envelope/mod.rs) and a session's times. */
export const isRfc3339 = (value: unknown): boolean =>
  typeof value === 'string' && rfc3339Nanos(value) !== null;

/**
 * An event's time in nanoseconds since the epoch, or null: Relay's `Timestamp` takes seconds since
 * the epoch as a number or an RFC 3339 text, and refuses a year past 9999
 * (relay-event-schema/src/protocol/types.rs, `Timestamp::from_value`). A number is read as Relay
 * reads an f64: its whole seconds, and its fraction times 10⁹ cut to whole nanoseconds (Rust's cast,
 * which makes a negative fraction 0).
 */
export function eventNanos(value: unknown): bigint | null {
  let nanos: bigint | null = null;
  // (JSON's 1e999 reads as Infinity, which no time is.)
  if (typeof value === 'number' && Number.isFinite(value)) {
    const whole = Math.trunc(value);
    nanos = BigInt(whole) * NANOS_PER_SECOND + BigInt(Math.max(0, Math.trunc((value - whole) * 1e9)));
  } else if (typeof value === 'string') nanos = rfc3339Nanos(value);
  return nanos !== null && nanos <= LAST_EVENT_NANOS ? nanos : null;
}

/** Whether `value` is a whole number from 0 up (Relay reads these fields as u64). */
const isCount = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;

/** Why the envelope header breaks a rule, or '' when it keeps them. */
export function headerBreaks(header: Json): string {
  // relay-server/src/envelope/mod.rs, EnvelopeHeaders: `event_id: Option<EventId>` and
  // `sent_at: Option<DateTime<Utc>>`; either one malformed fails the whole envelope's parse.
  if (header.event_id !== undefined && !isUuid(header.event_id)) return 'event_id';
  if (header.sent_at !== undefined && !isRfc3339(header.sent_at)) return 'sent_at';
  return '';
}

/**
 * relay-server/src/services/processor/event.rs: the event's id is overwritten with the envelope's.
 * One that differs would reach Sentry under another id than the one the queue knows it by, and
 * than the reference the visitor was shown; the browser SDK writes the same id in both.
 */
function idBreaks(header: Json, payload: Json): string {
  if (!isUuid(header.event_id)) return 'event_id';
  if (payload.event_id === undefined) return '';
  return isUuid(payload.event_id) &&
    uuidKey(payload.event_id as string) === uuidKey(header.event_id as string)
    ? ''
    : 'event_id_mismatch';
}

/** relay-event-normalization/src/validation.rs, `validate_span`: both times, end not before start, both ids. */
function spanBreaks(span: unknown): string {
  if (!isObject(span)) return 'span';
  const start = eventNanos(span.start_timestamp);
  const end = eventNanos(span.timestamp);
  if (start === null || end === null || end < start) return 'span_timestamps';
  if (!isUuid(span.trace_id) || !isSpanId(span.span_id)) return 'span_ids';
  return '';
}

/**
 * relay-event-normalization/src/validation.rs, `validate_transaction`: a start and an end
 * (`validate_timestamps`: the end not before the start), a trace context with a trace id and a span
 * id (`validate_trace_context`), and every span valid (`validate_spans`).
 */
function transactionBreaks(payload: Json): string {
  const start = eventNanos(payload.start_timestamp);
  const end = eventNanos(payload.timestamp);
  if (start === null || end === null || end < start) return 'timestamps';
  const trace = isObject(payload.contexts) ? payload.contexts.trace : undefined;
  if (!isObject(trace) || !isUuid(trace.trace_id) || !isSpanId(trace.span_id)) return 'trace_context';
  if (payload.spans === undefined) return '';
  if (!Array.isArray(payload.spans)) return 'span';
  for (const span of payload.spans) {
    const broken = spanBreaks(span);
    if (broken) return broken;
  }
  return '';
}

/** sentry-release-parser's `validate_release` (Relay drops a session whose release fails it). */
function releaseBreaks(release: unknown): boolean {
  if (typeof release !== 'string') return true;
  return (
    release.length > MAX_RELEASE_CHARS ||
    RESTRICTED_RELEASES.has(release.toLowerCase()) ||
    RELEASE_BAD_CHARACTERS.test(release)
  );
}

/**
 * relay-event-schema/src/protocol/session.rs (`SessionUpdate`: what parses) and
 * relay-server/src/services/processor/session.rs (`process_session`: what is dropped): a UUID
 * `sid`, a `started` time, a `timestamp` time when given, counts that are whole and not negative
 * (`seq` below u64's largest), a known status, and `attrs` with a valid release.
 */
function sessionBreaks(payload: Json): string {
  if (payload.sid !== undefined && !isUuid(payload.sid)) return 'sid';
  if (!isRfc3339(payload.started)) return 'started';
  if (payload.timestamp !== undefined && !isRfc3339(payload.timestamp)) return 'timestamp';
  if (payload.status !== undefined && !SESSION_STATUSES.has(payload.status as string)) return 'status';
  for (const field of ['seq', 'errors'])
    if (payload[field] !== undefined && !isCount(payload[field])) return field;
  if (payload.init !== undefined && typeof payload.init !== 'boolean') return 'init';
  // (Number.isFinite is false for anything but a number, and for JSON's 1e999.)
  if (payload.duration !== undefined && !Number.isFinite(payload.duration)) return 'duration';
  if (payload.did !== undefined && payload.did !== null && typeof payload.did !== 'string') return 'did';
  if (!isObject(payload.attrs) || releaseBreaks(payload.attrs.release)) return 'release';
  return '';
}

/** Which rule an item of `type` breaks in an envelope with `header`, or '' when it keeps them all. */
export function itemBreaks(type: string, header: Json, payload: Json): string {
  switch (type) {
    case 'event':
      return idBreaks(header, payload);
    case 'transaction':
      return idBreaks(header, payload) || transactionBreaks(payload);
    case 'session':
      return sessionBreaks(payload);
    default:
      // Span containers: their spans are checked and scrubbed item by item (../scrub/span.ts).
      return '';
  }
}
