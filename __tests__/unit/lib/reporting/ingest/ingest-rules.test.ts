// The ingest's rules, each with a case taken from getsentry/relay (its own tests' values where it has
// them), through the tunnel's whole check: what Relay rejects or drops is refused before it takes
// room in the queue, and what it keeps passes.
import { checkEnvelope, REFUSAL_ANSWERS } from '@lib/reporting/ingest/envelope';
import { isRfc3339, isSpanId, isUuid } from '@lib/reporting/ingest/ingest-rules';

const DSN = 'https://publickey@o1.ingest.example/7';
const ID = '9ec79c33ec9942ab8353589fcb2e04dc';
// relay-event-schema/src/protocol/contexts/trace.rs, its tests' trace and span ids.
const TRACE_ID = '4c79f60c11214eb38604f4ae0781bfb2';
const SPAN_ID = 'fa90fdead5f74053';

type Json = Record<string, unknown>;

function envelope(header: Json, type: string, payload: Json): string {
  return `${JSON.stringify({ dsn: DSN, ...header })}\n{"type":"${type}"}\n${JSON.stringify(payload)}\n`;
}

const verdictOf = (text: string) => {
  const checked = checkEnvelope(new TextEncoder().encode(text), DSN);
  return checked.ok ? 'forwarded' : checked.refusal;
};
const verdict = (header: Json, type: string, payload: Json) => verdictOf(envelope(header, type, payload));

const transaction = (fields: Json = {}): Json => ({
  type: 'transaction',
  transaction: '/',
  start_timestamp: '2000-01-01T00:00:00Z',
  timestamp: '2000-01-01T00:00:10Z',
  contexts: { trace: { trace_id: TRACE_ID, span_id: SPAN_ID, op: 'http.server' } },
  ...fields,
});

// relay-event-schema/src/protocol/session.rs, test_session_roundtrip.
const session = (fields: Json = {}): Json => ({
  sid: '8333339f-5675-4f89-a9a0-1c935255ab58',
  did: 'foobarbaz',
  seq: 42,
  init: true,
  timestamp: '2020-02-07T15:17:00Z',
  started: '2020-02-07T14:16:00Z',
  duration: 1947.49,
  status: 'exited',
  errors: 0,
  attrs: { release: 'sentry-test@1.0.0', environment: 'production' },
  ...fields,
});

describe('the envelope header (relay-server/src/envelope/mod.rs, EnvelopeHeaders)', () => {
  it.each([ID, '9ec79c33-ec99-42ab-8353-589fcb2e04dc', ID.toUpperCase()])('takes the event id %p', (id) => {
    expect(verdict({ event_id: id }, 'event', {})).toBe('forwarded');
  });

  it.each(['not-a-uuid', ID.slice(1), `${ID}0`, `{${ID}}`, `urn:uuid:${ID}`, 42, null])(
    'refuses the event id %p: no EventId, and the whole envelope fails to parse',
    (id) => {
      expect(verdict({ event_id: id }, 'event', {})).toBe('against-ingest-rules');
    },
  );

  it.each(['2020-02-07T15:17:00Z', '2021-04-26T08:00:00+0100', '2026-11-23T00:00:00.123456+01:00'])(
    'takes sent_at %p (chrono reads it as DateTime<Utc>)',
    (sentAt) => {
      expect(verdict({ event_id: ID, sent_at: sentAt }, 'event', {})).toBe('forwarded');
    },
  );

  it.each([
    'yesterday',
    '2026-13-01T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-11-23',
    '2026-11-23T24:00:00Z',
    // V8's Date.parse reads both (its fallback skips words around a date); chrono reads the whole
    // text, so the pattern must match all of it.
    'Mon 2026-11-23 00:00:00Z',
    '2026-11-23 00:00:00Z GMT',
    1764000000,
  ])('refuses sent_at %p', (sentAt) => {
    expect(verdict({ event_id: ID, sent_at: sentAt }, 'event', {})).toBe('against-ingest-rules');
  });

  it('refuses a malformed event id on an envelope of any item, a session too', () => {
    expect(verdict({ event_id: 'not-a-uuid' }, 'session', session())).toBe('against-ingest-rules');
    expect(verdict({ event_id: ID }, 'session', session())).toBe('forwarded');
  });

  it('refuses a day past its month’s end and 24:00, which Date.parse would roll over', () => {
    for (const sentAt of ['2026-02-30T00:00:00Z', '2026-04-31T12:00:00Z', '2024-01-31T24:00:00Z'])
      expect(verdict({ event_id: ID, sent_at: sentAt }, 'event', {})).toBe('against-ingest-rules');
    expect(verdict({ event_id: ID, sent_at: '2026-04-30T23:59:59Z' }, 'event', {})).toBe('forwarded');
  });

  it('refuses an id or a time written as a list around a good one (a list is no text)', () => {
    expect(verdict({ event_id: [ID] }, 'event', {})).toBe('against-ingest-rules');
    expect(verdict({ event_id: ID, sent_at: ['2020-02-07T15:17:00Z'] }, 'event', {})).toBe(
      'against-ingest-rules',
    );
  });

  it('takes a negative offset, and one without its colon', () => {
    expect(verdict({ event_id: ID, sent_at: '2020-02-07T10:17:00-05:00' }, 'event', {})).toBe('forwarded');
    expect(verdict({ event_id: ID, sent_at: '2020-02-07T10:17:00-0500' }, 'event', {})).toBe('forwarded');
  });

  it('answers 400 in one fixed sentence', () => {
    expect(REFUSAL_ANSWERS['against-ingest-rules']).toEqual({
      status: 400,
      message:
        "This envelope breaks a rule of Sentry's ingest (an id, a time or a field), so it would not be kept.",
    });
  });
});

describe("an event's id (relay-server/src/services/processor/event.rs: the envelope's id wins)", () => {
  it('takes a payload without an id, or with the same id in either spelling', () => {
    expect(verdict({ event_id: ID }, 'event', { message: 'x' })).toBe('forwarded');
    expect(verdict({ event_id: ID }, 'event', { event_id: ID.toUpperCase() })).toBe('forwarded');
    expect(verdict({ event_id: ID }, 'event', { event_id: '9ec79c33-ec99-42ab-8353-589fcb2e04dc' })).toBe(
      'forwarded',
    );
  });

  it.each([['b'.repeat(32)], ['not an id']])('refuses a payload id %p other than the header’s', (id) => {
    expect(verdict({ event_id: ID }, 'event', { event_id: id })).toBe('against-ingest-rules');
    expect(verdict({ event_id: ID }, 'transaction', transaction({ event_id: id }))).toBe(
      'against-ingest-rules',
    );
  });

  it('refuses an event or a transaction whose envelope names no id: the queue knows each by it', () => {
    expect(verdict({}, 'event', {})).toBe('against-ingest-rules');
    expect(verdict({}, 'transaction', transaction())).toBe('against-ingest-rules');
  });
});

describe('a transaction (relay-event-normalization/src/validation.rs)', () => {
  it('takes the one of its tests, with times as text or as seconds', () => {
    expect(verdict({ event_id: ID }, 'transaction', transaction())).toBe('forwarded');
    expect(
      verdict(
        { event_id: ID },
        'transaction',
        transaction({ start_timestamp: 946684800, timestamp: 946684800.5 }),
      ),
    ).toBe('forwarded');
    expect(
      verdict(
        { event_id: ID },
        'transaction',
        transaction({
          contexts: { trace: { trace_id: TRACE_ID.toUpperCase(), span_id: SPAN_ID.toUpperCase() } },
        }),
      ),
    ).toBe('forwarded');
  });

  it.each<[string, Json]>([
    ['end timestamp is smaller than start timestamp', { timestamp: '1999-12-31T23:59:59Z' }],
    ['timestamp hard-required', { timestamp: undefined }],
    ['start_timestamp hard-required', { start_timestamp: undefined }],
    ['a time that is no time', { timestamp: 'soon' }],
    ['missing valid trace context (no contexts)', { contexts: undefined }],
    ['missing valid trace context (null)', { contexts: { trace: null } }],
    ['trace context is missing trace_id', { contexts: { trace: { span_id: SPAN_ID } } }],
    ['trace context is missing span_id', { contexts: { trace: { trace_id: TRACE_ID } } }],
    [
      'not a valid trace id (g)',
      { contexts: { trace: { trace_id: '4c79f60c11214eb38604f4ae0781bfbg', span_id: SPAN_ID } } },
    ],
    [
      'not a valid trace id (31 characters)',
      { contexts: { trace: { trace_id: TRACE_ID.slice(1), span_id: SPAN_ID } } },
    ],
    [
      'not a valid span id (all zero)',
      { contexts: { trace: { trace_id: TRACE_ID, span_id: '0'.repeat(16) } } },
    ],
    [
      'not a valid span id (15 characters)',
      { contexts: { trace: { trace_id: TRACE_ID, span_id: SPAN_ID.slice(1) } } },
    ],
    ['spans must be valid in transaction event', { spans: [null] }],
    ['spans that are no list', { spans: {} }],
    [
      'span is missing start_timestamp',
      { spans: [{ timestamp: '2000-01-01T00:00:00Z', trace_id: TRACE_ID, span_id: SPAN_ID }] },
    ],
    [
      'span is missing trace_id',
      {
        spans: [
          { start_timestamp: '2000-01-01T00:00:00Z', timestamp: '2000-01-01T00:00:00Z', span_id: SPAN_ID },
        ],
      },
    ],
    [
      "a span's end before its start",
      { spans: [{ start_timestamp: 2, timestamp: 1, trace_id: TRACE_ID, span_id: SPAN_ID }] },
    ],
  ])('refuses one where %s', (_rule, fields) => {
    expect(verdict({ event_id: ID }, 'transaction', transaction(fields))).toBe('against-ingest-rules');
  });

  it('takes a transaction that ends as it starts', () => {
    expect(verdict({ event_id: ID }, 'transaction', transaction({ timestamp: '2000-01-01T00:00:00Z' }))).toBe(
      'forwarded',
    );
  });

  it('compares times written as seconds with times written as text, by the moment they name', () => {
    // 946684800 is 2000-01-01T00:00:00Z.
    expect(
      verdict(
        { event_id: ID },
        'transaction',
        transaction({ start_timestamp: 946684800, timestamp: '2000-01-01T00:00:01Z' }),
      ),
    ).toBe('forwarded');
    expect(
      verdict(
        { event_id: ID },
        'transaction',
        transaction({ start_timestamp: '2000-01-01T00:00:01Z', timestamp: 946684800 }),
      ),
    ).toBe('against-ingest-rules');
    expect(
      verdict(
        { event_id: ID },
        'transaction',
        transaction({ start_timestamp: '2000-01-01T00:00:00Z', timestamp: 946684801 }),
      ),
    ).toBe('forwarded');
    expect(
      verdict(
        { event_id: ID },
        'transaction',
        transaction({ start_timestamp: '2000-01-01T01:00:00+01:00', timestamp: '2000-01-01T00:00:01Z' }),
      ),
    ).toBe('forwarded');
  });

  it('refuses a time of 1e999 (JSON reads it as Infinity) and one written as a list', () => {
    const text = envelope({ event_id: ID }, 'transaction', transaction()).replace(
      '"timestamp":"2000-01-01T00:00:10Z"',
      '"timestamp":1e999',
    );
    expect(text).toContain('1e999');
    expect(verdictOf(text)).toBe('against-ingest-rules');
    expect(
      verdict({ event_id: ID }, 'transaction', transaction({ timestamp: ['2000-01-01T00:00:10Z'] })),
    ).toBe('against-ingest-rules');
  });

  it('refuses a span without its span id, or with ids written as lists', () => {
    const times = { start_timestamp: 1, timestamp: 1 };
    for (const span of [
      { ...times, trace_id: TRACE_ID },
      { ...times, trace_id: TRACE_ID, span_id: [SPAN_ID] },
      { ...times, trace_id: [TRACE_ID], span_id: SPAN_ID },
    ])
      expect(verdict({ event_id: ID }, 'transaction', transaction({ spans: [span] }))).toBe(
        'against-ingest-rules',
      );
  });

  it('checks every span, not only the first', () => {
    const good = { start_timestamp: 1, timestamp: 1, trace_id: TRACE_ID, span_id: SPAN_ID };
    expect(
      verdict({ event_id: ID }, 'transaction', transaction({ spans: [good, { ...good, timestamp: 0 }] })),
    ).toBe('against-ingest-rules');
  });

  it('takes valid spans', () => {
    const span = { start_timestamp: 1, timestamp: 1, trace_id: TRACE_ID, span_id: SPAN_ID, op: 'db' };
    expect(verdict({ event_id: ID }, 'transaction', transaction({ spans: [span, span] }))).toBe('forwarded');
  });
});

describe('a session (relay-event-schema/src/protocol/session.rs, relay-server/src/services/processor/session.rs)', () => {
  it('takes the one of its round-trip test, and one with only what is required', () => {
    expect(verdict({}, 'session', session())).toBe('forwarded');
    expect(verdict({}, 'session', { started: '2021-04-26T08:00:00+0100', attrs: { release: '1.0.0' } })).toBe(
      'forwarded',
    );
  });

  it.each(['ok', 'exited', 'crashed', 'abnormal', 'errored', 'unhandled'])(
    'takes the status %p',
    (status) => {
      expect(verdict({}, 'session', session({ status }))).toBe('forwarded');
    },
  );

  it.each<[string, Json]>([
    [
      'an unknown status ("this is not a valid status!", dropped in processing)',
      { status: 'this is not a valid status!' },
    ],
    ['a sid that is no UUID', { sid: 'session-1' }],
    ['no started', { started: undefined }],
    ['a started that is no time', { started: '2021-04-26' }],
    ['a timestamp that is no time', { timestamp: 1581088620 }],
    ['a sequence overflow (seq 18446744073709551615)', { seq: 18446744073709551615 }],
    ['a negative seq', { seq: -1 }],
    ['errors that are no count', { errors: 1.5 }],
    ['an init that is no boolean', { init: 'yes' }],
    ['a duration that is no number', { duration: '12s' }],
    ['a did that is no text', { did: 7 }],
    ['no attrs', { attrs: undefined }],
    ['no release', { attrs: { environment: 'production' } }],
    ['a release of 201 characters', { attrs: { release: 'r'.repeat(201) } }],
    ['the release "latest"', { attrs: { release: 'Latest' } }],
    ['the release "."', { attrs: { release: '.' } }],
    ['the release ".."', { attrs: { release: '..' } }],
    ['a release with a slash', { attrs: { release: 'app/1.0' } }],
    ['a release with a newline', { attrs: { release: 'app\n1.0' } }],
  ])('refuses one with %s', (_rule, fields) => {
    expect(verdict({}, 'session', session(fields))).toBe('against-ingest-rules');
  });

  it('takes a did of null, as Relay writes it back, and counts of 0', () => {
    expect(verdict({}, 'session', session({ did: null, seq: 0, errors: 0 }))).toBe('forwarded');
  });

  it('refuses a duration of 1e999 (JSON reads it as Infinity)', () => {
    const text = envelope({}, 'session', session()).replace('"duration":1947.49', '"duration":1e999');
    expect(text).toContain('1e999');
    expect(verdictOf(text)).toBe('against-ingest-rules');
  });

  it('takes a release of 200 characters', () => {
    expect(verdict({}, 'session', session({ attrs: { release: 'r'.repeat(200) } }))).toBe('forwarded');
  });
});

describe('the id and time readers', () => {
  it('read ids as Relay does', () => {
    expect([isUuid(TRACE_ID), isUuid(TRACE_ID.slice(1)), isUuid(undefined)]).toEqual([true, false, false]);
    expect([isSpanId('0000000000000001'), isSpanId('1000000000000000')]).toEqual([true, true]);
    expect([isSpanId(SPAN_ID), isSpanId('0000000000000000'), isSpanId(`${SPAN_ID}0`), isSpanId(1)]).toEqual([
      true,
      false,
      false,
      false,
    ]);
  });

  it('read times as RFC 3339 with a real date and time', () => {
    expect(isRfc3339('2024-02-29T23:59:59Z')).toBe(true);
    expect(isRfc3339('2023-02-29T00:00:00Z')).toBe(false);
    expect(isRfc3339('2024-01-01T00:60:00Z')).toBe(false);
    expect(isRfc3339('2024-01-01T00:00:60Z')).toBe(false);
    expect(isRfc3339('2024-01-01 00:00:00z')).toBe(true);
    expect(isRfc3339(undefined)).toBe(false);
  });
});
