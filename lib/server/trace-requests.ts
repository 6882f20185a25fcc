// Server transactions: each page render and API request (not health probes, assets or public files)
// is one `http.server` transaction named by Next's route pattern, made with @sentry/core's span API
// on the client lib/reporting/node/sentry-client.ts made, without OpenTelemetry. Sampled by
// SENTRY_TRACES_SAMPLE_RATE, or by the decision of the trace a request continues (a navigation's
// data request or a fetch from a sampled page carries `sentry-trace`) while ./trace-budget.ts
// allows: past it, the request keeps the trace it names but is sampled by the rate. The trace
// reaches the document as meta tags (pages/_document.tsx reads it off the request, see
// traceMetaOf), and the browser's page load continues it. Loaded only with a DSN and a rate above
// 0 (lib/server/start.ts): @sentry/core is not loaded at start otherwise.
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  continueTrace,
  dynamicSamplingContextToSentryBaggageHeader,
  getDynamicSamplingContextFromSpan,
  setHttpStatus,
  spanToTraceHeader,
  startInactiveSpan,
  startNewTrace,
  type Span,
  type StartSpanOptions,
} from '@sentry/core';
import { methodLabel, routeOf } from '../metrics/http-route';
import { recordInheritedSampled } from '../metrics/record';
import { TRACE_META, type TraceMeta } from '../reporting/trace-meta';
import { createTraceBudget, type TraceBudget } from './trace-budget';

export interface RequestTracerOptions {
  /** The files of public/: served as they are, not traced. */
  publicFiles: ReadonlySet<string>;
  /** Paths never traced: the health probes, asked every few seconds by machines. */
  untraced: ReadonlySet<string>;
  /** SENTRY_TRACES_SAMPLE_RATE: what the budget of inherited decisions fills by (./trace-budget.ts). */
  sampleRate: number;
}

/** Starts a request's transaction (or does nothing for a path that is not traced). Never throws. */
export type RequestTracer = (req: IncomingMessage, res: ServerResponse, pathname: string) => void;

/** Paths under these prefixes are Next's files and dev tools: served, never rendered. */
const UNTRACED_PREFIXES = ['/_next/static/', '/_next/image', '/__nextjs'];

const header = (value: string | string[] | undefined): string | undefined =>
  typeof value === 'string' ? value : undefined;

/** `sentry-trace` as the SDK writes it: trace id, parent span id, and maybe a decision. */
const SENTRY_TRACE = /^[ \t]*([0-9a-f]{32})-([0-9a-f]{16})(?:-([01]))?[ \t]*$/;

/**
 * The `sentry-trace` to continue: the request's trace and parent as they are, its "sampled" only
 * within the budget (a "not sampled" is always honoured: it costs nothing); undefined for none,
 * or one the SDK could not read either.
 */
function continuedTrace(value: string | undefined, budget: TraceBudget): string | undefined {
  if (value === undefined) return undefined;
  const parsed = SENTRY_TRACE.exec(value);
  if (!parsed) return undefined;
  const [, traceId, parentId, decision] = parsed;
  if (decision !== '1') return value;
  if (budget.take()) {
    recordInheritedSampled('honoured');
    return value;
  }
  recordInheritedSampled('over_budget');
  return `${traceId}-${parentId}`;
}

function startTransaction(req: IncomingMessage, budget: TraceBudget): Span {
  const method = methodLabel(req.method);
  const options: StartSpanOptions = {
    // Renamed to the route when answered: the path is never a name (it may hold ids or secrets),
    // and a span named by its URL keeps its name out of the trace's sampling context.
    name: method,
    op: 'http.server',
    // Stryker disable next-line BooleanLiteral: a span with no parent is a transaction anyway; this says it is meant.
    forceTransaction: true,
    attributes: {
      'sentry.origin': 'auto.http.app_shell',
      'sentry.segment.name.source': 'url',
      'http.request.method': method,
    },
  };
  // SECURITY: a decision to sample is ours; a stranger's header spends the budget, not our quota.
  const sentryTrace = continuedTrace(header(req.headers['sentry-trace']), budget);
  // Each request its own trace, unless it continues one: without an async context the scopes are
  // shared, so a trace is never taken from them. SECURITY: only the trace id, parent and decision
  // are taken from the request, never its `baggage`: a stranger's release, environment or any
  // other value would otherwise ride along with our transactions and into the document.
  // Stryker disable next-line ConditionalExpression: continueTrace with no header starts a new trace too; this says so.
  if (sentryTrace === undefined) return startNewTrace(() => startInactiveSpan(options));
  return continueTrace({ sentryTrace, baggage: undefined }, () => startInactiveSpan(options));
}

export function createRequestTracer({
  publicFiles,
  untraced,
  sampleRate,
}: RequestTracerOptions): RequestTracer {
  const budget = createTraceBudget(sampleRate);
  return (req, res, pathname) => {
    try {
      if (untraced.has(pathname) || publicFiles.has(pathname)) return;
      if (UNTRACED_PREFIXES.some((prefix) => pathname.startsWith(prefix))) return;
      budget.earn();
      const span = startTransaction(req, budget);
      const meta: TraceMeta = {
        sentryTrace: spanToTraceHeader(span),
        // Stryker disable next-line StringLiteral: a span's sampling context always has a trace id, so a header.
        baggage: dynamicSamplingContextToSentryBaggageHeader(getDynamicSamplingContextFromSpan(span)) ?? '',
      };
      (req as IncomingMessage & { [TRACE_META]?: TraceMeta })[TRACE_META] = meta;
      // Stryker disable next-line ConditionalExpression: a span not recorded ignores its name and end; this saves the listener.
      if (!span.isRecording()) return;
      res.once('close', () => {
        try {
          const status = res.headersSent ? res.statusCode : 499;
          span.updateName(`${methodLabel(req.method)} ${routeOf(req, res, status, pathname, publicFiles)}`);
          // After updateName, which marks the name `custom`.
          span.setAttribute('sentry.segment.name.source', 'route');
          setHttpStatus(span, status);
          span.end();
        } catch {
          // Tracing must never become a request's failure.
        }
      });
    } catch {
      // As above.
    }
  };
}
