// The trace a document is handed: only what the server's tracer put on the request, of its shape.
import type { IncomingMessage } from 'node:http';
import { TRACE_META, traceMetaOf } from '@lib/reporting/trace-meta';

const requestWith = (meta: unknown) => ({ [TRACE_META]: meta }) as unknown as IncomingMessage;

it('reads the trace the tracer left on the request', () => {
  expect(traceMetaOf(requestWith({ sentryTrace: 'a-b-1', baggage: 'sentry-trace_id=a' }))).toEqual({
    sentryTrace: 'a-b-1',
    baggage: 'sentry-trace_id=a',
  });
});

it.each([
  ['no request', undefined],
  ['nothing', requestWith(undefined)],
  ['null', requestWith(null)],
  ['text', requestWith('a-b-1')],
  ['a trace without baggage', requestWith({ sentryTrace: 'a-b-1' })],
])('is null for %s', (_, req) => {
  expect(traceMetaOf(req as IncomingMessage | undefined)).toBeNull();
});
