// Server-side error reports: through @sentry/core's server runtime client (no OpenTelemetry-based
// SDK) when SENTRY_DSN is set, else one JSON line on stderr per error. Initialised by
// instrumentation.ts; reached by everything else through lib/reporting/server-hook.ts.
import {
  createStackParser,
  createTransport,
  dedupeIntegration,
  eventFiltersIntegration,
  linkedErrorsIntegration,
  Scope,
  setCurrentClient,
  type BaseTransportOptions,
  type Transport,
  type TransportMakeRequestResponse,
  type TransportRequest,
} from '@sentry/core';
import { nodeStackLineParser, ServerRuntimeClient } from '@sentry/core/server';
import { beforeExit } from '../lifecycle/state';
import { log } from '../log/json-line';
import { markReported, newEventId, referenceOf, shortReference } from './reference';
import { scrubEvent, scrubUrl } from './scrub';
import { installServerReporter, type ServerErrorContext } from './server-hook';

const SEND_TIMEOUT_MS = 5000;
const FLUSH_TIMEOUT_MS = 2000;

export interface ServerReportingConfig {
  dsn: string | null;
  release: string;
  environment: string;
}

/** Sends envelopes with Node's fetch, bounded by a timeout so a slow ingest cannot pile up requests. */
function fetchTransport(options: BaseTransportOptions): Transport {
  return createTransport(
    options,
    async (request: TransportRequest): Promise<TransportMakeRequestResponse> => {
      const response = await fetch(options.url, {
        method: 'POST',
        body: request.body as BodyInit,
        headers: { 'Content-Type': 'application/x-sentry-envelope' },
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
      return {
        statusCode: response.status,
        headers: {
          'x-sentry-rate-limits': response.headers.get('x-sentry-rate-limits'),
          'retry-after': response.headers.get('retry-after'),
        },
      };
    },
  );
}

let client: ServerRuntimeClient | null = null;

function errorParts(error: unknown): { message: string; stack?: string } {
  if (error instanceof Error) return { message: error.message, stack: error.stack };
  try {
    return { message: typeof error === 'string' ? error : JSON.stringify(error) };
  } catch {
    return { message: String(error) };
  }
}

/**
 * Reports one server error and returns its reference id, or undefined when it is not reported
 * (status below 500). The same error object is only ever reported once. Never throws.
 */
export function reportServerError(error: unknown, context: ServerErrorContext): string | undefined {
  try {
    if (context.status < 500) return undefined;
    const existing = referenceOf(error);
    if (existing) return existing;
    const id = newEventId();
    markReported(error, id);
    const path = context.path ? scrubUrl(context.path) : undefined;

    if (!client) {
      const { message, stack } = errorParts(error);
      log('error', 'server.error', {
        reference: id,
        route: context.route,
        method: context.method,
        status: context.status,
        ...(path ? { path } : {}),
        message,
        ...(stack ? { stack } : {}),
      });
      return id;
    }

    const scope = new Scope();
    scope.setTags({
      route: context.route,
      method: context.method,
      status: String(context.status),
      reference: shortReference(id),
      mechanism: context.mechanism ?? 'onRequestError',
    });
    scope.addEventProcessor((event) => ({
      ...event,
      transaction: `${context.method} ${context.route}`,
      request: { method: context.method, ...(path ? { url: path } : {}) },
    }));
    client.captureException(error, { event_id: id }, scope);
    return id;
  } catch {
    return undefined;
  }
}

export function initServerReporting(config: ServerReportingConfig): void {
  if (client || !config.dsn) {
    installServerReporter(reportServerError);
    return;
  }
  client = new ServerRuntimeClient({
    dsn: config.dsn,
    release: config.release,
    environment: config.environment,
    platform: 'node',
    runtime: { name: 'node', version: process.version },
    transport: fetchTransport,
    stackParser: createStackParser(nodeStackLineParser()),
    integrations: [eventFiltersIntegration(), dedupeIntegration(), linkedErrorsIntegration()],
    // Sentry v11 collects more by default than v10 did; collect nothing about the visitor.
    dataCollection: {
      userInfo: false,
      cookies: false,
      httpHeaders: { request: { allow: ['user-agent'] }, response: false },
      httpBodies: [],
      // Kept, minus anything secret-looking: Sentry filters its own list, then scrubEvent ours.
      urlQueryParams: true,
      stackFrameVariables: false,
    },
    sendClientReports: false,
    beforeSend: (event) => scrubEvent(event),
  });
  setCurrentClient(client);
  client.init();
  installServerReporter(reportServerError);
  const active = client;
  beforeExit('error-reports', () => Promise.resolve(active.flush(FLUSH_TIMEOUT_MS)));
}
