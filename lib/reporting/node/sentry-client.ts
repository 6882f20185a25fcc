// The Sentry side of server reporting: @sentry/core's server runtime client (no OpenTelemetry-based
// SDK). Loaded by ./reporter.ts only when there is a DSN, like all of @sentry/core on the server
// (docs/own-server.md, "Start time").
import {
  type BaseTransportOptions,
  createStackParser,
  createTransport,
  dedupeIntegration,
  eventFiltersIntegration,
  linkedErrorsIntegration,
  Scope,
  setCurrentClient,
  type Transport,
  type TransportMakeRequestResponse,
  type TransportRequest,
} from '@sentry/core';
import { nodeStackLineParser, ServerRuntimeClient } from '@sentry/core/server';
import { beforeExit } from '../../lifecycle/state';
import { DATA_COLLECTION } from '../data-collection';
import { shortReference } from '../reference';
import { scrubEvent } from '../scrub';
import type { ServerErrorContext } from './hook';

const SEND_TIMEOUT_MS = 5000;
const FLUSH_TIMEOUT_MS = 2000;

export interface SentryConfig {
  dsn: string;
  release: string;
  environment: string;
}

/** Captures one error under the given id; never throws. */
export type SentrySender = (
  error: unknown,
  id: string,
  context: ServerErrorContext,
  path: string | undefined,
) => void;

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

export function createSentrySender(config: SentryConfig): SentrySender {
  const client = new ServerRuntimeClient({
    dsn: config.dsn,
    release: config.release,
    environment: config.environment,
    platform: 'node',
    runtime: { name: 'node', version: process.version },
    transport: fetchTransport,
    stackParser: createStackParser(nodeStackLineParser()),
    integrations: [eventFiltersIntegration(), dedupeIntegration(), linkedErrorsIntegration()],
    dataCollection: DATA_COLLECTION,
    sendClientReports: false,
    beforeSend: (event) => scrubEvent(event),
  });
  setCurrentClient(client);
  client.init();
  beforeExit('error-reports', () => Promise.resolve(client.flush(FLUSH_TIMEOUT_MS)));

  return (error, id, context, path) => {
    try {
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
    } catch {
      // Reporting must never be a new failure.
    }
  };
}
