// The tunnel's check of an envelope a browser posted (docs/tunnel.md): cheap to refuse, whatever the
// body holds, and what it forwards is exactly what it checked.
//
// - The DSN in the first line is compared before anything else is read: junk for another DSN, or
//   no envelope at all, costs one scan for a newline.
// - The browser SDK sends one item per envelope: an error event, a transaction (sampled page loads
//   and navigations), a session update (release health) or a span sent on its own (INP). That is all that passes: one item of
//   one of those three types, and nothing after it. The work is a few scans and one JSON parse of
//   the payload, linear in the body's size.
// - SECURITY: the ingest gets a canonical re-serialisation of what was parsed (Sentry's own
//   createEnvelope and serializeEnvelope), never the raw bytes. A duplicate key
//   (`{"type":"check_in","type":"event"}`, a foreign DSN before ours), a length that disagrees with
//   the payload or a stray line ending could make another parser read an item type or DSN that
//   was never approved; in the re-serialised envelope every key is written once, as checked.
import { createEnvelope, type Envelope, serializeEnvelope } from '@sentry/core';
import { scrubSamplingContext, scrubSpanItems } from '../scrub';
import { headerBreaks, itemBreaks } from './ingest-rules';

const NEWLINE = 0x0a;
/** The SDK's envelope header is a few hundred bytes; a first line longer than this is no envelope. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** The same for an item header, which the SDK writes in a few dozen bytes. */
export const MAX_ITEM_HEADER_BYTES = 1024;
/** The envelope-header fields the SDK writes for these items, and all that is forwarded. */
const HEADER_FIELDS = ['event_id', 'sent_at', 'dsn', 'sdk', 'trace'] as const;
/**
 * The item types forwarded: what the browser SDK sends for errors, traces and release health. A
 * `span` item is a container of spans the SDK sends on their own rather than inside a transaction:
 * Web Vitals such as INP, measured after an interaction.
 * SECURITY: check-ins, feedback, replays, attachments, profiles, client reports, logs and the rest
 * could forge monitors or spend the project's quota, and this app's browser code sends none.
 */
export const FORWARDED_ITEM_TYPES: ReadonlySet<string> = new Set(['event', 'transaction', 'session', 'span']);
/** The one content type of a span container, and the most spans one may hold (the SDK sends one). */
const SPAN_CONTENT_TYPE = 'application/vnd.sentry.items.span.v2+json';
const MAX_SPANS_PER_ITEM = 100;

/** The item header to forward for `type`, from what was read; null when it is not what the SDK writes. */
function forwardedItemHeader(type: string, read: Record<string, unknown>): Record<string, unknown> | null {
  if (type !== 'span') return { type };
  // Ingest reads a span container by its content type and count: both kept, as checked.
  const count = read.item_count;
  if (read.content_type !== SPAN_CONTENT_TYPE) return null;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_SPANS_PER_ITEM)
    return null;
  return { type, item_count: count, content_type: SPAN_CONTENT_TYPE };
}

/**
 * Why an envelope is refused. Each reason has one fixed, short answer (never an echo of what was
 * sent), so a refusal costs a few hundred bytes whatever the body was.
 */
export type Refusal = 'not-an-envelope' | 'foreign-dsn' | 'not-one-item' | 'against-ingest-rules';

export const REFUSAL_ANSWERS: Readonly<Record<Refusal, { status: number; message: string }>> = {
  'not-an-envelope': { status: 400, message: 'Not a Sentry envelope.' },
  'foreign-dsn': { status: 403, message: 'This tunnel only forwards envelopes for its own DSN.' },
  'not-one-item': {
    status: 400,
    message: 'This tunnel only forwards one event, transaction, session or span item per envelope.',
  },
  'against-ingest-rules': {
    status: 400,
    message:
      "This envelope breaks a rule of Sentry's ingest (an id, a time or a field), so it would not be kept.",
  },
};

export type EnvelopeCheck = { ok: true; envelope: Uint8Array | string } | { ok: false; refusal: Refusal };

const refuse = (refusal: Refusal): EnvelopeCheck => ({ ok: false, refusal });

/** A JSON object from `bytes`, or null: anything else (an array, a number, bad JSON). */
function jsonObject(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(
      Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8'),
    );
    // Stryker disable next-line ConditionalExpression,LogicalOperator: every caller reads fields of a given type, which no other JSON value has.
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The index of the newline that ends the line starting at `from`, if one is within `max` bytes. */
function lineEnd(body: Uint8Array, from: number, max: number): number | null {
  const limit = Math.min(body.length, from + max + 1);
  for (let i = from; i < limit; i += 1) if (body[i] === NEWLINE) return i;
  return null;
}

/** The envelope header, a JSON object on the first line, and where that line ends; null when none. */
function envelopeHeader(body: Uint8Array): { header: Record<string, unknown>; end: number } | null {
  const end = lineEnd(body, 0, MAX_HEADER_BYTES);
  if (end === null) return null;
  const header = jsonObject(body.subarray(0, end));
  return header === null ? null : { header, end };
}

interface Item {
  header: Record<string, unknown>;
  type: string;
  payloadStart: number;
  payloadEnd: number;
}

/**
 * The item that starts at `start`: a JSON object header with a string `type` on one line, then its
 * payload, `length` bytes when the header says so (within the body), else the rest of the line.
 * Null when it is none. What follows the payload is the caller's to judge.
 */
function itemAt(body: Uint8Array, start: number): Item | null {
  const headerEnd = lineEnd(body, start, MAX_ITEM_HEADER_BYTES);
  if (headerEnd === null) return null;
  const header = jsonObject(body.subarray(start, headerEnd));
  const type = header?.type;
  if (header === null || typeof type !== 'string') return null;
  const payloadStart = headerEnd + 1;
  if (header.length === undefined)
    return {
      header,
      type,
      payloadStart,
      payloadEnd: lineEnd(body, payloadStart, body.length) ?? body.length,
    };
  const { length } = header;
  if (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0) return null;
  const payloadEnd = payloadStart + length;
  return payloadEnd > body.length ? null : { header, type, payloadStart, payloadEnd };
}

/**
 * Checks an envelope for `dsn` and returns the bytes to forward: the same envelope, written anew
 * from what was checked. Never throws.
 */
export function checkEnvelope(body: Uint8Array, dsn: string): EnvelopeCheck {
  try {
    // 1. The envelope header, and its DSN, before anything else.
    const top = envelopeHeader(body);
    if (top === null || typeof top.header.dsn !== 'string') return refuse('not-an-envelope');
    const { header } = top;
    // SECURITY: only envelopes for this app's own DSN: the tunnel is no open relay into Sentry.
    if (header.dsn !== dsn) return refuse('foreign-dsn');
    // What the ingest would reject takes no room in the queue nor in the project's quota.
    if (headerBreaks(header)) return refuse('against-ingest-rules');

    // 2. Exactly one item, of a type forwarded: its payload `length` bytes when the header says so,
    // else the rest of the line; after it at most one newline.
    const item = itemAt(body, top.end + 1);
    if (item === null || !FORWARDED_ITEM_TYPES.has(item.type)) return refuse('not-one-item');
    const { type, payloadStart, payloadEnd } = item;
    const forwardedHeader = forwardedItemHeader(type, item.header);
    if (forwardedHeader === null) return refuse('not-one-item');
    const rest = body.length - payloadEnd;
    if (rest > 1 || (rest === 1 && body[payloadEnd] !== NEWLINE)) return refuse('not-one-item');
    const read = jsonObject(body.subarray(payloadStart, payloadEnd));
    if (read === null) return refuse('not-one-item');
    if (itemBreaks(type, header, read)) return refuse('against-ingest-rules');
    // SECURITY: spans the SDK sends on their own (INP) pass the browser's scrubber only through a
    // hook the SDK may skip in another version; they are scrubbed again here, like the trace header.
    const payload = type === 'span' ? scrubSpanItems(read) : read;
    if (payload === null) return refuse('not-one-item');

    // 3. Written anew: each key once, as read; the payload on one line (JSON.stringify writes no
    // raw newline), so it needs no length.
    const headers: Record<string, unknown> = {};
    // (A field the header lacks is undefined here, and JSON writes no undefined.)
    for (const field of HEADER_FIELDS) headers[field] = header[field];
    if (typeof header.trace === 'object' && header.trace !== null)
      headers.trace = scrubSamplingContext(header.trace as Record<string, unknown>);
    // (Typed loosely: the item types forwarded share this one shape, a header and an object.)
    const envelope = createEnvelope<Envelope>(
      headers as Envelope[0],
      [[forwardedHeader, payload]] as unknown as Envelope[1],
    );
    return { ok: true, envelope: serializeEnvelope(envelope) };
  } catch {
    return refuse('not-an-envelope');
  }
}

/**
 * Checks an envelope the server's own SDK wrote, which a stopping peer hands over
 * (../queue/hand-off.ts), as far as an envelope's shape goes: its header as a browser's (a JSON
 * object on the first line, within the ingest's rules for its id and time), and its DSN, when it
 * names one, this app's (the server's SDK has no tunnel, so it writes none); then one item or more, each as
 * `itemAt` reads one, with at most one newline after the last. The items' contents are not judged:
 * the server's SDK sends what a browser's does not (client reports, attachments), and what it sends
 * is its own. The body is kept as it came. Never throws.
 */
export function checkServerEnvelope(body: Uint8Array, dsn: string): EnvelopeCheck {
  try {
    const top = envelopeHeader(body);
    if (top === null) return refuse('not-an-envelope');
    const { header } = top;
    // SECURITY: as the tunnel, no envelope for another project.
    if (header.dsn !== undefined && header.dsn !== dsn) return refuse('foreign-dsn');
    if (headerBreaks(header)) return refuse('against-ingest-rules');
    let next = top.end + 1;
    do {
      const item = itemAt(body, next);
      if (item === null) return refuse('not-one-item');
      const { payloadEnd } = item;
      if (payloadEnd < body.length && body[payloadEnd] !== NEWLINE) return refuse('not-one-item');
      next = payloadEnd + 1;
    } while (next < body.length);
    return { ok: true, envelope: body };
  } catch {
    return refuse('not-an-envelope');
  }
}
