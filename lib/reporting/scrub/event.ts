// What of an event may leave: the user never, the request by allow-list (method, URL as its route,
// query, user agent), breadcrumbs without console output, and everything else scrubbed whole
// (./deep.ts).
import type { Breadcrumb, Event, SpanJSON } from '@sentry/core';
import { scrubDeep } from './deep';
import { asRoute, type ScrubOptions } from './route';
import { NUMERIC_FIELDS, routedDescription, URL_FIELDS } from './span';
import { scrubParams, scrubText, scrubUrl } from './text';

/** Headers an event may keep: the user agent only. */
function keepUserAgent(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'user-agent');
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/**
 * Fields the SDK itself writes, of a shape that holds no data (ids, times, its own name): kept as
 * they are, when they have that shape, so the scrub's work goes to what can hold a secret.
 */
const SDK_FIELDS: Readonly<Record<string, (value: unknown) => boolean>> = {
  event_id: (value) => typeof value === 'string' && HEX_ID.test(value),
  // A time, type, platform or level of these shapes comes out of the scrubber unchanged: setting them
  // aside only saves its work, so their checks are marked below (an id is not: 16 digits can pass
  // Luhn's check, the first test of scrub-rules.test.ts).
  // Stryker disable next-line ConditionalExpression: see above.
  timestamp: (value) => typeof value === 'number',
  // Stryker disable next-line ConditionalExpression: see above.
  start_timestamp: (value) => typeof value === 'number',
  // Stryker disable next-line ConditionalExpression,StringLiteral: see above.
  type: (value) => value === 'transaction' || value === 'event' || value === undefined,
  // Stryker disable next-line ConditionalExpression,StringLiteral: see above.
  platform: (value) => value === 'node' || value === 'javascript',
  // Stryker disable next-line ConditionalExpression,StringLiteral,Regex: see above.
  level: (value) => typeof value === 'string' && /^[a-z]{1,8}$/.test(value),
};
/** The same for the trace context: its ids. */
const TRACE_IDS = ['trace_id', 'span_id', 'parent_span_id'];
const HEX_ID = /^[0-9a-f]{16,32}$/;

/** `from` without the fields `kept` says may pass as they are, which go to `kept`. */
function setAsideSdkFields(from: Record<string, unknown>, kept: Record<string, unknown>): void {
  for (const [field, holdsNoData] of Object.entries(SDK_FIELDS)) {
    if (field in from && holdsNoData(from[field])) {
      kept[field] = from[field];
      delete from[field];
    }
  }
}

/**
 * The trace context's ids, taken out of `trace` to pass as they are (scrubEvent puts them back).
 * Taken out, not scrubbed and then overwritten: new with every trace, they would cost the scrubber
 * work and push what repeats out of its cache (./text.ts), for an answer that is the same.
 */
function setAsideTraceIds(trace: Record<string, unknown>): Record<string, unknown> {
  const ids: Record<string, unknown> = {};
  for (const field of TRACE_IDS) {
    const value = trace[field];
    if (typeof value === 'string' && HEX_ID.test(value)) {
      ids[field] = value;
      // Stryker disable next-line all: saves the scrubber's work and its cache (above), same answer.
      delete trace[field];
    }
  }
  return ids;
}

/** Fields of a trace's sampling context the SDK writes as ids, numbers and flags. */
const DSC_VALUES = /^(?:[0-9a-f]{1,32}|\d{1,2}(?:\.\d{1,20})?(?:e-\d{1,3})?|true|false)$/;

/**
 * The SDK's own notes on an event, which it never sends (it deletes them as it writes the
 * envelope) but for one: the trace's sampling context, which becomes the envelope's `trace`
 * header. That one is scrubbed; the rest (the scopes, the request the SDK read) is passed as it is,
 * because scrubbing it cost a traced request more than everything that is sent.
 */
function processingMetadata(metadata: Record<string, unknown>): Record<string, unknown> {
  const dsc = metadata.dynamicSamplingContext;
  if (typeof dsc !== 'object' || dsc === null) return metadata;
  return { ...metadata, dynamicSamplingContext: scrubSamplingContext(dsc as Record<string, unknown>) };
}

/**
 * A trace's sampling context (an envelope's `trace` header, a `baggage`): its ids, numbers and flags
 * as they are (a sample_rand of 16 digits can pass Luhn's check), the rest scrubbed.
 */
export function scrubSamplingContext(dsc: Record<string, unknown>): Record<string, unknown> {
  const scrubbed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(dsc)) {
    scrubbed[scrubText(key)] =
      // Anything else came from outside the SDK (a baggage header): scrubbed as user data, so a
      // secret-named field loses its value too.
      typeof value === 'string' && DSC_VALUES.test(value) ? value : scrubDeep(value, true, new WeakSet(), 1);
  }
  return scrubbed;
}

export function scrubEvent<E extends Event>(event: E, options: ScrubOptions = {}): E {
  try {
    const { request, breadcrumbs, sdkProcessingMetadata, ...rest } = event;
    // The user goes whole: never an IP address or anything else that identifies a person.
    delete rest.user;
    const kept: Record<string, unknown> = {};
    setAsideSdkFields(rest as Record<string, unknown>, kept);
    const trace = rest.contexts?.trace ? { ...rest.contexts.trace } : undefined;
    const traceIds = trace ? setAsideTraceIds(trace as Record<string, unknown>) : {};
    // Stryker disable next-line ConditionalExpression: the ids set aside (above) save work, not change the answer.
    if (trace) rest.contexts = { ...rest.contexts, trace };
    const out = scrubDeep(rest, false, new WeakSet(), 0) as E;
    Object.assign(out, kept);
    if (out.contexts?.trace) Object.assign(out.contexts.trace, traceIds);
    if (request) {
      // Allow-list: cookies, bodies and the server's environment never leave.
      const { url, method, query_string: query, headers } = request;
      const userAgent = keepUserAgent(headers);
      out.request = {
        ...(method ? { method } : {}),
        ...(url ? { url: scrubUrl(asRoute(url, options.routeOf, options.origin)) } : {}),
        ...(typeof query === 'string' ? { query_string: scrubParams(query, 0) } : {}),
        ...(userAgent ? { headers: userAgent } : {}),
      };
    }
    if (breadcrumbs) out.breadcrumbs = breadcrumbs.map((crumb) => scrubBreadcrumb(crumb, options));
    if (sdkProcessingMetadata) out.sdkProcessingMetadata = processingMetadata(sdkProcessingMetadata);
    return out;
  } catch {
    // If scrubbing fails, send less rather than risk sending a secret.
    return { event_id: event.event_id, level: event.level, message: 'Event dropped by the scrubber' } as E;
  }
}

function routedData(data: Record<string, unknown> | undefined, options: ScrubOptions) {
  if (!data) return data;
  const out = { ...data };
  for (const field of URL_FIELDS) {
    const value = out[field];
    if (typeof value === 'string') out[field] = asRoute(value, options.routeOf, options.origin);
  }
  return out;
}

/** Puts back the NUMERIC_FIELDS of `before` that are numbers, after `after` was scrubbed. */
function keepNumbers(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown> | undefined,
) {
  if (!before || !after) return;
  for (const field of NUMERIC_FIELDS) if (typeof before[field] === 'number') after[field] = before[field];
}

/**
 * A transaction: what an event keeps, and every URL its spans and trace context name (span
 * descriptions, `url.full` and the like) reported as the route it belongs to before the secrets in
 * what is left are scrubbed like any other value.
 */
export function scrubTransaction<E extends Event>(event: E, options: ScrubOptions = {}): E | null {
  try {
    const trace = event.contexts?.trace;
    const routed: E = {
      ...event,
      ...(trace
        ? { contexts: { ...event.contexts, trace: { ...trace, data: routedData(trace.data, options) } } }
        : {}),
      ...(event.spans
        ? {
            spans: event.spans.map((span): SpanJSON => ({
              ...span,
              description: routedDescription(span.description, options),
              data: routedData(span.data, options) as SpanJSON['data'],
            })),
          }
        : {}),
    };
    const scrubbed = scrubEvent(routed, options);
    keepNumbers(trace?.data, scrubbed.contexts?.trace?.data);
    // Stryker disable next-line OptionalChaining: the scrubbed spans are the spans, one for one.
    event.spans?.forEach((span, i) => keepNumbers(span.data, scrubbed.spans?.[i]?.data));
    return scrubbed;
  } catch {
    // A transaction is worth less than the risk: none is sent rather than one half scrubbed.
    return null;
  }
}

function scrubBreadcrumb(crumb: Breadcrumb, options: ScrubOptions): Breadcrumb {
  const data = crumb.data ? { ...crumb.data } : undefined;
  if (data) {
    for (const field of ['url', 'from', 'to']) {
      if (typeof data[field] === 'string')
        data[field] = asRoute(data[field], options.routeOf, options.origin);
    }
  }
  return scrubDeep({ ...crumb, ...(data ? { data } : {}) }, false, new WeakSet(), 0) as Breadcrumb;
}

export function scrubBreadcrumbOrDrop(crumb: Breadcrumb, options: ScrubOptions = {}): Breadcrumb | null {
  try {
    // Console breadcrumbs can carry anything a developer logged.
    if (crumb.category === 'console') return null;
    return scrubBreadcrumb(crumb, options);
  } catch {
    return null;
  }
}
