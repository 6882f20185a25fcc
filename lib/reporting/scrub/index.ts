// The scrubber: removes what must never reach the error-reporting service or a log line, wherever
// in an event it hides. One table of patterns (./patterns.ts), applied by concern: text and URLs
// (./text.ts), any value (./deep.ts), events and breadcrumbs (./event.ts), spans sent on their own
// (./span.ts), routes (./route.ts).
export { FILTERED } from './patterns';
export { scrubFields } from './deep';
export { scrubBreadcrumbOrDrop, scrubEvent, scrubSamplingContext, scrubTransaction } from './event';
export { asRoute, type ScrubOptions } from './route';
export { scrubSpan, scrubSpanItems } from './span';
export { scrubText, scrubUrl } from './text';

/** The rules of the scrubber, beside the table of shapes: each has a row in the tests' secret table. */
export const SCRUB_RULES = [
  'secret-named-field',
  'url-parameter',
  'nested-url',
  'email',
  'object-key',
] as const;
