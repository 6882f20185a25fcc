// Spans the SDK sends on their own, outside any transaction (INP after an interaction, in the
// browser): the same scrub as a transaction's spans, in the two shapes they take. As the SDK
// hands them to `beforeSendSpan` (a span's JSON: a description and a data map), before they leave
// the browser; and as the tunnel receives them (a span container: a name and typed attributes),
// before they leave the server.
import type { SpanJSON } from '@sentry/core';
import { scrubDeep } from './deep';
import { FILTERED, SECRET_NAME } from './patterns';
import { asRoute, type ScrubOptions } from './route';
import { scrubText } from './text';

/** Span data fields that hold a URL or a path: reported as the route they belong to. */
export const URL_FIELDS = ['url', 'http.url', 'url.full', 'url.path'];
/** Numeric span data the scrubber would take for a secret by its name (`…code`), and is not one. */
export const NUMERIC_FIELDS = ['http.response.status_code'];

/** One attribute's value, scrubbed as user data: a secret name loses it whatever it is. */
function scrubAttribute(key: string, value: unknown, options: ScrubOptions): unknown {
  if (typeof value === 'number' && NUMERIC_FIELDS.includes(key)) return value;
  if (SECRET_NAME.test(key) && (typeof value === 'string' || typeof value === 'number')) return FILTERED;
  if (typeof value === 'string' && URL_FIELDS.includes(key))
    return scrubText(asRoute(value, options.routeOf, options.origin));
  return scrubDeep(value, true, new WeakSet(), 1);
}

/** A span description that names a request: `GET https://host/orders/42?x=1`. */
const REQUEST_DESCRIPTION = /^([A-Z]{3,7}) (\S+)$/;

/** A span's description that names a request or a URL of the app, with the route for the path. */
export function routedDescription(
  description: string | undefined,
  options: ScrubOptions,
): string | undefined {
  if (!description) return description;
  const request = REQUEST_DESCRIPTION.exec(description);
  if (request) return `${request[1]} ${asRoute(request[2]!, options.routeOf, options.origin)}`;
  return /^(\/|https?:)/.test(description)
    ? asRoute(description, options.routeOf, options.origin)
    : description;
}

/** A span's name or description, as its route where it names one, scrubbed. */
function scrubName(name: string | undefined, options: ScrubOptions): string | undefined {
  const routed = routedDescription(name, options);
  return routed ? scrubText(routed) : routed;
}

/**
 * A span's JSON, as `beforeSendSpan` gets it. Never throws: the SDK would send the span as it was;
 * a span it cannot scrub goes with its ids and times only.
 */
export function scrubSpan(span: SpanJSON, options: ScrubOptions = {}): SpanJSON {
  try {
    const data: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(span.data ?? {}))
      data[scrubText(key)] = scrubAttribute(key, value, options);
    return { ...span, description: scrubName(span.description, options), data: data as SpanJSON['data'] };
  } catch {
    return idsAndTimes(span);
  }
}

/** What of a span can never hold a secret; read field by field, each of which may throw too. */
function idsAndTimes(span: SpanJSON): SpanJSON {
  const out = { description: FILTERED, data: {} } as unknown as SpanJSON;
  for (const field of [
    'span_id',
    'trace_id',
    'parent_span_id',
    'start_timestamp',
    'timestamp',
    'op',
    'status',
  ] as const) {
    try {
      const value = span[field];
      if (typeof value === 'string' || typeof value === 'number')
        (out as unknown as Record<string, unknown>)[field] = value;
    } catch {
      // Left out.
    }
  }
  return out;
}

interface TypedAttribute {
  type?: unknown;
  value?: unknown;
  unit?: unknown;
}

/**
 * The spans of a span container (`{ items: [{ name, attributes: { key: { type, value } } }] }`),
 * as a browser posts them to the tunnel: a new payload. Never throws: null for one it cannot read.
 */
export function scrubSpanItems(payload: Record<string, unknown>): Record<string, unknown> | null {
  try {
    if (!Array.isArray(payload.items)) return null;
    const items = payload.items.map((item: unknown) => {
      if (typeof item !== 'object' || item === null) return {};
      const { name, attributes, ...rest } = item as Record<string, unknown>;
      const scrubbedRest = scrubDeep(rest, false, new WeakSet(), 1) as Record<string, unknown>;
      const out: Record<string, unknown> = { ...scrubbedRest };
      if (typeof name === 'string') out.name = scrubName(name, {});
      if (typeof attributes === 'object' && attributes !== null) {
        const scrubbed: Record<string, TypedAttribute> = {};
        for (const [key, typed] of Object.entries(attributes as Record<string, TypedAttribute>)) {
          if (typeof typed !== 'object' || typed === null) continue;
          const value = scrubAttribute(key, typed.value, {});
          // A number a secret name filtered is a string now, and says so.
          // Stryker disable next-line ConditionalExpression: a value that came filtered is text, and typed so, already.
          const type = value === FILTERED && typed.value !== FILTERED ? 'string' : typed.type;
          scrubbed[scrubText(key)] = { ...typed, type, value };
        }
        out.attributes = scrubbed;
      }
      return out;
    });
    return { ...payload, items };
  } catch {
    return null;
  }
}
