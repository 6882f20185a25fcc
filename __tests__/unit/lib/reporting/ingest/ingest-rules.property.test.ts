// Times as Relay reads them, from the grammar, at every precision: RFC 3339 texts built from a known
// instant (any number of fractional digits, every offset form and separator), seconds as a number,
// and dates no calendar has, checked against a model of what chrono and Relay make of each
// (chrono src/format/scan.rs `nanosecond`: nine digits read, the rest skipped; relay-event-schema
// src/protocol/types.rs `Timestamp::from_value`: a year past 9999 refused).
import fc from 'fast-check';
import { eventNanos, isRfc3339, itemBreaks, LAST_EVENT_NANOS } from '@lib/reporting/ingest/ingest-rules';

const TRACE_ID = '4c79f60c11214eb38604f4ae0781bfb2';
const SPAN_ID = 'fa90fdead5f74052';
const EVENT_ID = '9ec79c33ec9942ab8353589fcb2e04dc';
const NANOS = 1_000_000_000n;
const LAST_SECOND = 253_402_300_799; // 9999-12-31T23:59:59Z

const two = (n: number) => String(n).padStart(2, '0');

/** Days in a month of the proleptic Gregorian calendar, by its own rule (not a Date's). */
const daysIn = (year: number, month: number) =>
  month === 2
    ? (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
      ? 29
      : 28
    : [4, 6, 9, 11].includes(month)
      ? 30
      : 31;

/** A moment, and how it is written: its offset, its fraction's length, its separator. */
const written = fc.record({
  seconds: fc.integer({ min: 0, max: LAST_SECOND }),
  nanos: fc.integer({ min: 0, max: 999_999_999 }),
  /** 0: no fraction; past 9, digits chrono skips. */
  digits: fc.integer({ min: 0, max: 14 }),
  extra: fc.stringMatching(/^\d{5}$/),
  offsetMinutes: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }),
  zulu: fc.constantFrom('Z', 'z', ''),
  colon: fc.boolean(),
  separator: fc.constantFrom('T', 't', ' '),
});
type Written = typeof written extends fc.Arbitrary<infer T> ? T : never;

/** The text, or null when its local date has no four-digit year. */
function text({
  seconds,
  nanos,
  digits,
  extra,
  offsetMinutes,
  zulu,
  colon,
  separator,
}: Written): string | null {
  const offset = zulu ? 0 : offsetMinutes;
  const local = new Date((seconds + offset * 60) * 1000);
  const year = local.getUTCFullYear();
  if (year < 0 || year > 9999) return null;
  const nine = String(nanos).padStart(9, '0');
  const fraction = digits === 0 ? '' : `.${(nine + extra).slice(0, digits)}`;
  const sign = offset < 0 ? '-' : '+';
  const zone =
    zulu ||
    `${sign}${two(Math.floor(Math.abs(offset) / 60))}${colon ? ':' : ''}${two(Math.abs(offset) % 60)}`;
  return (
    `${String(year).padStart(4, '0')}-${two(local.getUTCMonth() + 1)}-${two(local.getUTCDate())}` +
    `${separator}${two(local.getUTCHours())}:${two(local.getUTCMinutes())}:${two(local.getUTCSeconds())}` +
    `${fraction}${zone}`
  );
}

/** The model: the instant in nanoseconds, its fraction cut to what was written (nine digits at most). */
function instant({ seconds, nanos, digits }: Written): bigint {
  const kept = Math.min(digits, 9);
  const cut = kept === 0 ? 0n : BigInt(String(nanos).padStart(9, '0').slice(0, kept).padEnd(9, '0'));
  return BigInt(seconds) * NANOS + cut;
}

const transaction = (start: unknown, end: unknown) =>
  itemBreaks(
    'transaction',
    { event_id: EVENT_ID },
    {
      type: 'transaction',
      transaction: '/',
      start_timestamp: start,
      timestamp: end,
      contexts: { trace: { trace_id: TRACE_ID, span_id: SPAN_ID } },
    },
  );

describe('RFC 3339 at every precision', () => {
  it('reads every form of a real moment, to the nanosecond, however many digits it has', () => {
    fc.assert(
      fc.property(written, (moment) => {
        const value = text(moment);
        fc.pre(value !== null);
        expect(isRfc3339(value)).toBe(true);
        expect(eventNanos(value)).toBe(instant(moment));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a transaction that ends before it starts, and only that, down to a nanosecond', () => {
    fc.assert(
      fc.property(written, fc.integer({ min: -2000, max: 2000 }), written, (start, step, style) => {
        // The end near the start (the same second or the next), written in another style.
        const nanos = BigInt(start.seconds) * NANOS + BigInt(start.nanos) + BigInt(step);
        // (Not before the epoch, where BigInt's division would round toward zero.)
        fc.pre(nanos >= 0n);
        const end = { ...style, seconds: Number(nanos / NANOS), nanos: Number(nanos % NANOS), digits: 9 };
        const from = { ...start, digits: 9 };
        const [startText, endText] = [text(from), text(end)];
        fc.pre(startText !== null && endText !== null && end.seconds <= LAST_SECOND && end.seconds >= 0);
        expect(transaction(startText, endText)).toBe(instant(end) < instant(from) ? 'timestamps' : '');
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a date past its month’s end, and takes every day up to it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 1, max: 31 }),
        (year, month, day) => {
          const value = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T12:00:00Z`;
          expect(isRfc3339(value)).toBe(day <= daysIn(year, month));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('reads the years 0 to 99 as themselves, not as 1900 to 1999 (found by the case above)', () => {
    expect(isRfc3339('0000-02-29T12:00:00Z')).toBe(true);
    expect(isRfc3339('0004-02-29T23:59:59Z')).toBe(true);
    expect(isRfc3339('0099-02-29T00:00:00Z')).toBe(false);
    expect(isRfc3339('1900-02-29T00:00:00Z')).toBe(false);
    expect(eventNanos('0001-01-01T00:00:00Z')).toBe(-62_135_596_800n * NANOS);
  });

  it('refuses an hour past 23, a minute or second past 59, and an offset past 23:59', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (hour, minute, second, offsetHours, offsetMinutes) => {
          const value = `2024-06-15T${two(hour)}:${two(minute)}:${two(second)}+${two(offsetHours)}:${two(offsetMinutes)}`;
          const real = hour <= 23 && minute <= 59 && second <= 59 && offsetHours <= 23 && offsetMinutes <= 59;
          expect(isRfc3339(value)).toBe(real);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('a time as a number of seconds', () => {
  it('is read as Relay reads an f64: whole seconds, the fraction cut to nanoseconds', () => {
    expect(eventNanos(1.5)).toBe(1_500_000_000n);
    expect(eventNanos(0)).toBe(0n);
    // Rust's cast of a negative fraction is 0.
    expect(eventNanos(-1.5)).toBe(-1_000_000_000n);
    expect(eventNanos(LAST_SECOND)).toBe(BigInt(LAST_SECOND) * NANOS);
    expect(eventNanos(LAST_SECOND + 1)).toBeNull();
    expect([eventNanos(Number.POSITIVE_INFINITY), eventNanos(Number.NaN), eventNanos('1')]).toEqual([
      null,
      null,
      null,
    ]);
    expect(LAST_EVENT_NANOS).toBe(BigInt(LAST_SECOND) * NANOS + 999_999_999n);
  });

  it('refuses milliseconds sent as seconds, and takes the same moment in seconds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }),
        fc.integer({ min: 0, max: 60_000 }),
        (startMs, lengthMs) => {
          const endMs = startMs + lengthMs;
          expect(transaction(startMs / 1000, endMs / 1000)).toBe('');
          expect(transaction(startMs, endMs)).toBe('timestamps');
        },
      ),
      { numRuns: 300 },
    );
  });
});
