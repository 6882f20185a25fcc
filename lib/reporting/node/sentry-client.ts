// The Sentry side of server reporting: @sentry/core's server runtime client (no OpenTelemetry-based
// SDK). Loaded by ./reporter.ts only when there is a DSN, like all of @sentry/core on the server
// (docs/own-server.md, "Start time").
import {
  createStackParser,
  dedupeIntegration,
  eventFiltersIntegration,
  linkedErrorsIntegration,
  Scope,
  setCurrentClient,
} from '@sentry/core';
import { nodeStackLineParser, ServerRuntimeClient } from '@sentry/core/server';
import { beforeExit } from '../../lifecycle/state';
import { recordReport, recordTransaction, statusClass } from '../../metrics/record';
import { DATA_COLLECTION } from '../data-collection';
import { shortReference } from '../reference';
import { scrubEvent, scrubTransaction } from '../scrub';
import type { ServerErrorContext } from '../server-hook';
import { makeServerTransport, QUEUED_STATUS } from './transport';

const FLUSH_TIMEOUT_MS = 2000;

export interface SentryConfig {
  dsn: string;
  release: string;
  environment: string;
  /** The share of requests traced (lib/server/trace-requests.ts); 0: no transactions. */
  tracesSampleRate?: number;
}

/** Captures one error under the given id; never throws. */
export type SentrySender = (
  error: unknown,
  id: string,
  context: ServerErrorContext,
  path: string | undefined,
) => void;

/**
 * The SDK's client, counting what it drops (app_error_reports_total): the SDK tells no hook about a
 * drop (rate limited, queue full, network error), only its own recordDroppedEvent, which it calls
 * for every one, client reports on or off.
 */
class CountingClient extends ServerRuntimeClient {
  override recordDroppedEvent(...args: Parameters<ServerRuntimeClient['recordDroppedEvent']>): void {
    // Errors and transactions, each counted apart (a transaction's spans are its own, not counted).
    if (args[1] === 'error') recordReport('dropped', args[0]);
    else if (args[1] === 'transaction') recordTransaction('dropped', args[0]);
    super.recordDroppedEvent(...args);
  }
}

export function createSentrySender(config: SentryConfig): SentrySender {
  const client = new CountingClient({
    dsn: config.dsn,
    release: config.release,
    environment: config.environment,
    platform: 'node',
    runtime: { name: 'node', version: process.version },
    transport: makeServerTransport(),
    stackParser: createStackParser(nodeStackLineParser()),
    integrations: [eventFiltersIntegration(), dedupeIntegration(), linkedErrorsIntegration()],
    dataCollection: DATA_COLLECTION,
    sendClientReports: false,
    beforeSend: (event) => scrubEvent(event),
    // Tracing: whole transactions (not streamed spans), sent as the request ends, scrubbed like
    // events. Without a rate no span is ever recorded.
    ...(config.tracesSampleRate ? { tracesSampleRate: config.tracesSampleRate } : {}),
    traceLifecycle: 'static',
    beforeSendTransaction: (event) => scrubTransaction(event),
  });
  // Sent once the ingest took it; queued when it waits for the ingest (the queue's own counters say
  // when it leaves); an answer it refused counts as dropped, by its status. (No answer at all is a
  // drop the transport already told recordDroppedEvent about.)
  client.on('afterSendEvent', (event, response) => {
    const status = response.statusCode;
    if (status === undefined) return;
    const record = event.type === 'transaction' ? recordTransaction : recordReport;
    if (status === QUEUED_STATUS) record('queued', '');
    // (A final answer is never under 200.)
    else if (status < 300) record('sent', event.type === 'transaction' ? '2xx' : '');
    else record('dropped', `ingest_${statusClass(status)}`);
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
