import { createEnvelope, type Envelope, serializeEnvelope } from '@sentry/core';
import { checkEnvelope, checkServerEnvelope, REFUSAL_ANSWERS } from '@lib/reporting/ingest/envelope';
import { SECRET_CASES } from '../../../../support/secrets';

const DSN = 'https://publickey@o1.ingest.example/7';
const FOREIGN = 'https://otherkey@o2.ingest.example/9';
const HEADER = `{"event_id":"${'a'.repeat(32)}","sent_at":"2026-11-23T00:00:00.000Z","dsn":"${DSN}","sdk":{"name":"sentry.javascript.react","version":"11.12.0"}}`;
const EVENT = '{"event_id":"' + 'a'.repeat(32) + '","message":"hello","level":"error"}';

const TRACE = `"contexts":{"trace":{"trace_id":"${'c'.repeat(32)}","span_id":"${'d'.repeat(16)}"}}`;
const TRANSACTION = `{"type":"transaction","transaction":"/orders/[id]","start_timestamp":1764000000.1,"timestamp":1764000000.5,${TRACE},"spans":[]}`;
const SESSION = `{"sid":"${'b'.repeat(32)}","status":"ok","errors":0,"started":"2026-11-23T00:00:00.000Z","attrs":{"release":"r1"}}`;
const bytes = (text: string) => new TextEncoder().encode(text);
const check = (text: string) => checkEnvelope(bytes(text), DSN);
const text = (envelope: Uint8Array | string) =>
  typeof envelope === 'string' ? envelope : new TextDecoder().decode(envelope);

/** The forwarded envelope's lines, each parsed. */
function forwardedLines(envelope: string): unknown[] {
  const result = check(envelope);
  if (!result.ok) throw new Error(`refused: ${result.refusal}`);
  return text(result.envelope)
    .split('\n')
    .map((line) => JSON.parse(line) as unknown);
}

/** What a JSON parser that keeps the first of two duplicate keys reads (several do). */
function firstKeyWins(line: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [, key, value] of line.matchAll(/"([^"]+)":("[^"]*"|\d+)/g)) {
    if (!(key! in out)) out[key!] = JSON.parse(value!);
  }
  return out;
}

describe('checkEnvelope', () => {
  it('passes the one error event the SDK sends, as an envelope written anew', () => {
    const lines = forwardedLines(`${HEADER}\n{"type":"event"}\n${EVENT}\n`);
    expect(lines).toEqual([JSON.parse(HEADER), { type: 'event' }, JSON.parse(EVENT)]);
  });

  it('passes what it wrote as it is: the peer a stopping instance hands it to checks it again', () => {
    for (const [type, payload] of [
      ['event', EVENT],
      ['transaction', TRANSACTION],
      ['session', SESSION],
    ] as const) {
      const first = check(`${HEADER}\n{"type":"${type}"}\n${payload}\n`);
      if (!first.ok) throw new Error(`refused: ${first.refusal}`);
      const again = check(text(first.envelope));
      expect(again.ok && text(again.envelope)).toBe(text(first.envelope));
    }
  });

  it.each([
    ['a transaction', 'transaction', TRANSACTION],
    ['a session update', 'session', SESSION],
  ])('passes %s, the other item the browser SDK sends', (_name, type, payload) => {
    const lines = forwardedLines(`${HEADER}\n{"type":"${type}"}\n${payload}\n`);
    expect(lines).toEqual([JSON.parse(HEADER), { type }, JSON.parse(payload)]);
  });

  it('passes a span container (INP) with its content type and count, and nothing else of its header', () => {
    const spans = '{"version":2,"items":[{"name":"click","trace_id":"' + 'c'.repeat(32) + '"}]}';
    const lines = forwardedLines(
      `${HEADER}\n{"type":"span","item_count":1,"content_type":"application/vnd.sentry.items.span.v2+json","x":1}\n${spans}`,
    );
    expect(lines[1]).toEqual({
      type: 'span',
      item_count: 1,
      content_type: 'application/vnd.sentry.items.span.v2+json',
    });
    expect(lines[2]).toEqual(JSON.parse(spans));
  });

  it.each(SECRET_CASES)('scrubs the spans of a container again: $shape in its name and attributes', (row) => {
    const span = {
      trace_id: 'c'.repeat(32),
      span_id: 'd'.repeat(16),
      name: `body > button.${row.text}`,
      start_timestamp: 1,
      end_timestamp: 2,
      attributes: {
        'browser.web_vital.inp.target': { type: 'string', value: row.text },
        'browser.web_vital.inp.value': { type: 'double', value: 120 },
        sessionToken: { type: 'integer', value: 42 },
      },
    };
    const lines = forwardedLines(
      `${HEADER}\n{"type":"span","item_count":1,"content_type":"application/vnd.sentry.items.span.v2+json"}\n${JSON.stringify({ version: 2, items: [span] })}`,
    );
    const out = JSON.stringify(lines[2]);
    expect(out).not.toContain(row.secret);
    const [item] = (lines[2] as { items: Record<string, Record<string, unknown>>[] }).items;
    expect(item!.attributes!['browser.web_vital.inp.value']).toEqual({ type: 'double', value: 120 });
    // A number a secret name filtered is a string now, and says so.
    expect(item!.attributes!.sessionToken).toEqual({ type: 'string', value: '[Filtered]' });
    expect(item).toMatchObject({ trace_id: 'c'.repeat(32), span_id: 'd'.repeat(16), start_timestamp: 1 });
  });

  it('scrubs the trace header, keeping its ids and numbers', () => {
    const header = JSON.stringify({
      ...JSON.parse(HEADER),
      trace: { trace_id: 'c'.repeat(32), sample_rand: '0.4190849048773784', transaction: 'GET /x?token=abc' },
    });
    const lines = forwardedLines(`${header}\n{"type":"event"}\n${EVENT}\n`);
    expect((lines[0] as { trace: unknown }).trace).toEqual({
      trace_id: 'c'.repeat(32),
      sample_rand: '0.4190849048773784',
      transaction: 'GET /x?token=[Filtered]',
    });
  });

  it.each([
    ['no content type', '{"type":"span","item_count":1}'],
    ['another content type', '{"type":"span","item_count":1,"content_type":"application/json"}'],
    ['no count', '{"type":"span","content_type":"application/vnd.sentry.items.span.v2+json"}'],
    [
      'a count of 0',
      '{"type":"span","item_count":0,"content_type":"application/vnd.sentry.items.span.v2+json"}',
    ],
    [
      'a count of 10,000',
      '{"type":"span","item_count":10000,"content_type":"application/vnd.sentry.items.span.v2+json"}',
    ],
  ])('refuses a span item with %s', (_name, itemHeader) => {
    expect(check(`${HEADER}\n${itemHeader}\n{"items":[]}`)).toEqual({ ok: false, refusal: 'not-one-item' });
  });

  it('takes a span container of up to 100 spans, and refuses 101', () => {
    const spans = (count: number) =>
      `${HEADER}\n{"type":"span","item_count":${count},"content_type":"application/vnd.sentry.items.span.v2+json"}\n{"items":[]}`;
    expect(check(spans(100)).ok).toBe(true);
    expect(check(spans(101))).toEqual({ ok: false, refusal: 'not-one-item' });
  });

  it('refuses a span container whose payload holds no list of spans', () => {
    const itemHeader =
      '{"type":"span","item_count":1,"content_type":"application/vnd.sentry.items.span.v2+json"}';
    expect(check(`${HEADER}\n${itemHeader}\n{"spans":[]}`)).toEqual({ ok: false, refusal: 'not-one-item' });
  });

  it('takes an item header of exactly a kilobyte, and refuses one byte more', () => {
    const header = (bytes: number) => {
      const start = '{"type":"event","padding":"';
      return `${start}${'x'.repeat(bytes - start.length - 2)}"}`;
    };
    expect(header(1024)).toHaveLength(1024);
    expect(check(`${HEADER}\n${header(1024)}\n${EVENT}`).ok).toBe(true);
    expect(check(`${HEADER}\n${header(1025)}\n${EVENT}`)).toEqual({ ok: false, refusal: 'not-one-item' });
  });

  it('refuses one stray byte after a payload of declared length, other than a newline', () => {
    const length = Buffer.byteLength(EVENT);
    expect(check(`${HEADER}\n{"type":"event","length":${length}}\n${EVENT}\n`).ok).toBe(true);
    expect(check(`${HEADER}\n{"type":"event","length":${length}}\n${EVENT}x`)).toEqual({
      ok: false,
      refusal: 'not-one-item',
    });
  });

  it('passes a header whose trace is null, as it is: there is nothing in it to scrub', () => {
    const withNullTrace = HEADER.replace('{', '{"trace":null,');
    const lines = forwardedLines(`${withNullTrace}\n{"type":"event"}\n${EVENT}`);
    expect(lines[0]).toHaveProperty('trace', null);
  });

  it.each([
    ['a header of JSON null', `null\n{"type":"event"}\n${EVENT}`, 'not-an-envelope'],
    ['an item header of JSON null', `${HEADER}\nnull\n${EVENT}`, 'not-one-item'],
    ['a payload of JSON null', `${HEADER}\n{"type":"event"}\nnull`, 'not-one-item'],
  ])('refuses %s', (_name, envelope, refusal) => {
    expect(check(envelope)).toEqual({ ok: false, refusal });
  });

  it('reads a payload by its declared length, and one with newlines of its own', () => {
    const pretty = JSON.stringify(JSON.parse(EVENT), null, 2);
    const lines = forwardedLines(
      `${HEADER}\n{"type":"event","length":${Buffer.byteLength(pretty)}}\n${pretty}`,
    );
    expect(lines[2]).toEqual(JSON.parse(EVENT));
  });

  it.each([
    ['an item type written twice', `${HEADER}\n{"type":"check_in","type":"event"}\n${EVENT}`],
    [
      'a foreign DSN before ours',
      `${HEADER.replace('{', `{"dsn":"${FOREIGN}",`)}\n{"type":"event"}\n${EVENT}`,
    ],
    ['CRLF line endings', `${HEADER}\r\n{"type":"event"}\r\n${EVENT}\r\n`],
  ])('forwards %s so that every parser reads what was checked', (_name, envelope) => {
    const result = check(envelope);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [header, itemHeader] = text(result.envelope).split('\n') as [string, string];
    // Each key once, with the value that was checked, whichever duplicate a parser keeps.
    expect(firstKeyWins(itemHeader)).toEqual({ type: 'event' });
    expect(firstKeyWins(header).dsn).toBe(DSN);
    expect(header.match(/"dsn"/g)).toHaveLength(1);
    expect(text(result.envelope)).not.toContain('\r');
  });

  it('forwards only the envelope-header fields the SDK writes', () => {
    const lines = forwardedLines(
      `${HEADER.replace('{', '{"forwarded_for":"203.0.113.9","extra":1,')}\n{"type":"event"}\n${EVENT}`,
    );
    expect(Object.keys(lines[0] as object)).toEqual(['event_id', 'sent_at', 'dsn', 'sdk']);
  });

  it.each([
    ['an empty body', '', 'not-an-envelope'],
    ['no newline', HEADER, 'not-an-envelope'],
    ['a first line that is not JSON', `junk\n{"type":"event"}\n${EVENT}`, 'not-an-envelope'],
    ['a header without a DSN', `{"event_id":"x"}\n{"type":"event"}\n${EVENT}`, 'not-an-envelope'],
    ['a header that is an array', `["${DSN}"]\n{"type":"event"}\n${EVENT}`, 'not-an-envelope'],
    ['another DSN', `{"dsn":"${FOREIGN}"}\n{"type":"event"}\n${EVENT}`, 'foreign-dsn'],
    ['no item', `${HEADER}\n`, 'not-one-item'],
    ['a check-in', `${HEADER}\n{"type":"check_in"}\n{}`, 'not-one-item'],
    ['user feedback', `${HEADER}\n{"type":"feedback"}\n{}`, 'not-one-item'],
    ['a replay', `${HEADER}\n{"type":"replay_event"}\n{}`, 'not-one-item'],
    ['an attachment', `${HEADER}\n{"type":"attachment","length":2}\n{}`, 'not-one-item'],
    ['aggregated sessions', `${HEADER}\n{"type":"sessions"}\n{}`, 'not-one-item'],
    ['an item type that is no string', `${HEADER}\n{"type":["event"]}\n${EVENT}`, 'not-one-item'],
    [
      'a session after an event',
      `${HEADER}\n{"type":"event"}\n${EVENT}\n{"type":"session"}\n{}`,
      'not-one-item',
    ],
    ['a second item', `${HEADER}\n{"type":"event"}\n${EVENT}\n{"type":"event"}\n${EVENT}`, 'not-one-item'],
    ['an empty second item', `${HEADER}\n{"type":"event"}\n${EVENT}\n{}\n`, 'not-one-item'],
    ['junk after the payload', `${HEADER}\n{"type":"event"}\n${EVENT}\n\n`, 'not-one-item'],
    ['a length past the end', `${HEADER}\n{"type":"event","length":9999}\n${EVENT}`, 'not-one-item'],
    ['a length short of the payload', `${HEADER}\n{"type":"event","length":5}\n${EVENT}`, 'not-one-item'],
    ['a length that is no number', `${HEADER}\n{"type":"event","length":"12"}\n${EVENT}`, 'not-one-item'],
    ['a payload that is not JSON', `${HEADER}\n{"type":"event"}\nnot json`, 'not-one-item'],
    ['a payload that is not an object', `${HEADER}\n{"type":"event"}\n[1,2]`, 'not-one-item'],
  ])('refuses %s', (_name, envelope, refusal) => {
    expect(check(envelope)).toEqual({ ok: false, refusal });
  });

  it("refuses an item header over a kilobyte, far under the envelope header's bound", () => {
    // The SDK writes an item header in a few dozen bytes; 2 KiB is no item header.
    const padded = `{"type":"event","padding":"${'x'.repeat(2048)}"}`;
    expect(check(`${HEADER}\n${padded}\n${EVENT}\n`)).toEqual({ ok: false, refusal: 'not-one-item' });
    const justUnder = `{"type":"event","padding":"${'x'.repeat(900)}"}`;
    expect(check(`${HEADER}\n${justUnder}\n${EVENT}\n`).ok).toBe(true);
  });

  it('compares the DSN before it reads a single item', () => {
    // A megabyte of junk lines after another DSN's header: the refusal is the DSN's.
    const junk = `{"dsn":"${FOREIGN}"}\n${'1\n'.repeat(500_000)}`;
    expect(check(junk)).toEqual({ ok: false, refusal: 'foreign-dsn' });
    // After ours: the refusal is the items', found at the second item, whatever follows.
    expect(check(`${HEADER}\n{}\n${'1\n'.repeat(500_000)}`)).toEqual({ ok: false, refusal: 'not-one-item' });
  });

  it('answers every refusal in a few fixed words, far under a kilobyte', () => {
    for (const { status, message } of Object.values(REFUSAL_ANSWERS)) {
      expect(status === 400 || status === 403).toBe(true);
      expect(Buffer.byteLength(message)).toBeLessThan(100);
    }
  });

  it('never throws, whatever the bytes', () => {
    const nested = `${HEADER}\n{"type":"event"}\n${'['.repeat(200_000)}`;
    expect(() => check(nested)).not.toThrow();
    expect(check(nested)).toEqual({ ok: false, refusal: 'not-one-item' });
    expect(() => checkEnvelope(new Uint8Array([0xff, 0xfe, 0x0a, 0x00]), DSN)).not.toThrow();
  });
});

describe('checkServerEnvelope (what a stopping peer hands over of its server’s own)', () => {
  const checkServer = (body: string | Uint8Array) =>
    checkServerEnvelope(typeof body === 'string' ? bytes(body) : body, DSN);
  /** As the server's SDK writes one: no DSN in its header (it has no tunnel), items it alone sends. */
  const serverEnvelope = () =>
    serializeEnvelope(
      createEnvelope<Envelope>({ event_id: 'e'.repeat(32), sent_at: '2026-11-23T00:00:00.000Z' }, [
        [{ type: 'event' }, { event_id: 'e'.repeat(32), message: 'server error' }],
        [{ type: 'attachment', length: 4, filename: 'a.bin' }, new Uint8Array([0, 10, 10, 255])],
        [{ type: 'client_report' }, { timestamp: 1764000000, discarded_events: [] }],
      ] as unknown as Envelope[1]),
    );

  it('passes an envelope of the server’s SDK as it came: several items, a binary one among them', () => {
    const body = serverEnvelope();
    const checked = checkServer(body);
    expect(checked).toEqual({ ok: true, envelope: typeof body === 'string' ? bytes(body) : body });
  });

  it('passes one with a trailing newline, and one naming this app’s DSN', () => {
    expect(checkServer(`{}\n{"type":"event"}\n{}\n`).ok).toBe(true);
    expect(checkServer(`{"dsn":"${DSN}"}\n{"type":"event"}\n{}`).ok).toBe(true);
  });

  it('passes an item of declared length 0 (an empty attachment), the least a length may be', () => {
    expect(checkServer(`{}\n{"type":"event"}\n{}\n{"type":"attachment","length":0}\n\n`).ok).toBe(true);
  });

  it('refuses a negative length that points back at its own item header, rather than read it forever', () => {
    const itemHeader = '{"type":"event","length":-31}';
    // Back past its header and the newline before it: the next item would start where this one did.
    expect(itemHeader).toHaveLength(29);
    expect(checkServer(`{}\n${itemHeader}\n{}`)).toEqual({ ok: false, refusal: 'not-one-item' });
  });

  it.each([
    ['an empty body', '', 'not-an-envelope'],
    ['text that is no envelope', 'not an envelope at all', 'not-an-envelope'],
    ['a header line that is not JSON', '{"event_id":\n{"type":"event"}\n{}\n', 'not-an-envelope'],
    ['a header that is a list', '[]\n{"type":"event"}\n{}\n', 'not-an-envelope'],
    ['a header and no item', '{}\n', 'not-one-item'],
    ['an item header that is not JSON', '{}\nevent\n{}\n', 'not-one-item'],
    ['an item without a type', '{}\n{"length":2}\n{}\n', 'not-one-item'],
    ['a payload shorter than its length', '{}\n{"type":"event","length":9}\n{}\n', 'not-one-item'],
    ['a negative length', '{}\n{"type":"event","length":-1}\n{}\n', 'not-one-item'],
    [
      'a stray byte after a payload of declared length',
      '{}\n{"type":"event","length":2}\n{}x',
      'not-one-item',
    ],
    ['two newlines at the end', '{}\n{"type":"event"}\n{}\n\n', 'not-one-item'],
    ['another project’s DSN', `{"dsn":"${FOREIGN}"}\n{"type":"event"}\n{}\n`, 'foreign-dsn'],
    ['an event id Sentry cannot parse', '{"event_id":"x"}\n{"type":"event"}\n{}\n', 'against-ingest-rules'],
  ])('refuses %s', (_, body, refusal) => {
    expect(checkServer(body)).toEqual({ ok: false, refusal });
  });
});
