// The server transaction's trace, handed from the pipeline (lib/server/trace-requests.ts) to the
// document (pages/_document.tsx) on the request itself: the compiled server and Next's bundles are
// separate module graphs, and without an async context the SDK's scopes cannot tell concurrent
// requests apart. Hence a registered symbol, the same in both.
import type { IncomingMessage } from 'node:http';

export const TRACE_META = Symbol.for('app-shell.trace-meta');

/** The values of the document's `sentry-trace` and `baggage` meta tags. */
export interface TraceMeta {
  sentryTrace: string;
  baggage: string;
}

/** The trace of the request a document is rendered for, if the server traces it. */
export function traceMetaOf(req: IncomingMessage | undefined): TraceMeta | null {
  const meta = (req as (IncomingMessage & { [TRACE_META]?: unknown }) | undefined)?.[TRACE_META];
  if (typeof meta !== 'object' || meta === null) return null;
  const { sentryTrace, baggage } = meta as Partial<TraceMeta>;
  return typeof sentryTrace === 'string' && typeof baggage === 'string' ? { sentryTrace, baggage } : null;
}
