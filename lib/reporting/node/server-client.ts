// The server's @sentry/core client (no OpenTelemetry-based SDK), made the same way on the request's
// thread (./sentry-client.ts) and on the transaction thread (./transaction-worker.ts): the same
// options, the same scrub, and the same counts (app_error_reports_total, app_transactions_total),
// which the transaction thread hands back to the request's thread, where the metrics live
// (./counts.ts).
import {
  applySdkMetadata,
  type BaseTransportOptions,
  createStackParser,
  dedupeIntegration,
  type Event,
  type EventHint,
  eventFiltersIntegration,
  linkedErrorsIntegration,
  type Scope,
  type Transport,
  uuid4,
} from '@sentry/core';
import { nodeStackLineParser, ServerRuntimeClient } from '@sentry/core/server';
import { statusClass } from '../../metrics/record';
import { DATA_COLLECTION } from '../data-collection';
import { countDrop, type Counts } from './counts';
import { scrubEvent, scrubTransaction } from '../scrub';
import { QUEUED_STATUS } from './transport';

export interface SentryConfig {
  dsn: string;
  release: string;
  environment: string;
  /** The share of requests traced (lib/server/trace-requests.ts); 0: no transactions. */
  tracesSampleRate?: number;
}

/**
 * Prepares transactions elsewhere (./transaction-thread.ts): false when it cannot take this one,
 * which is then prepared here.
 */
export interface TransactionOffload {
  post: (event: Event) => boolean;
}

/**
 * What of a finished transaction crosses to the thread that prepares it: the event as the SDK made
 * it from the span, under its id, with the trace's sampling context (the envelope's `trace`
 * header) but not the scopes the SDK notes beside it, which hold functions and the client itself.
 */
export function transactionForThread(event: Event, eventId: string): Event {
  const { sdkProcessingMetadata, ...rest } = event;
  const dsc: unknown = sdkProcessingMetadata?.dynamicSamplingContext;
  return {
    ...rest,
    event_id: eventId,
    ...(dsc ? { sdkProcessingMetadata: { dynamicSamplingContext: dsc } } : {}),
  };
}

/**
 * The SDK's client, counting what it drops: the SDK tells no hook about a drop (rate limited,
 * queue full, network error), only its own recordDroppedEvent, which it calls for every one,
 * client reports on or off. With an offload, a finished transaction is prepared (processed,
 * scrubbed, made an envelope) on the transaction thread instead of the request's: about a fifth of
 * a traced page's CPU (bench/README.md, "A traced request").
 */
export class CountingClient extends ServerRuntimeClient {
  private counts: Counts;
  private offload: TransactionOffload | null;

  constructor(
    options: ConstructorParameters<typeof ServerRuntimeClient>[0],
    counts: Counts,
    offload: TransactionOffload | null,
  ) {
    super(options);
    this.counts = counts;
    this.offload = offload;
  }

  override recordDroppedEvent(...args: Parameters<ServerRuntimeClient['recordDroppedEvent']>): void {
    countDrop(this.counts, args[0], args[1]);
    super.recordDroppedEvent(...args);
  }

  override captureEvent(event: Event, hint?: EventHint, currentScope?: Scope): string {
    if (this.offload && event.type === 'transaction') {
      const eventId = hint?.event_id ?? uuid4();
      if (this.offload.post(transactionForThread(event, eventId))) return eventId;
    }
    return super.captureEvent(event, hint, currentScope);
  }
}

/** The client, not yet initialised (the caller does, after making it current where it should be). */
export function createServerClient(
  config: SentryConfig,
  counts: Counts,
  transport: (options: BaseTransportOptions) => Transport,
  offload: TransactionOffload | null = null,
): CountingClient {
  const options: ConstructorParameters<typeof ServerRuntimeClient>[0] = {
    dsn: config.dsn,
    release: config.release,
    environment: config.environment,
    platform: 'node',
    runtime: { name: 'node', version: process.version },
    transport,
    stackParser: createStackParser(nodeStackLineParser()),
    integrations: [eventFiltersIntegration(), dedupeIntegration(), linkedErrorsIntegration()],
    dataCollection: DATA_COLLECTION,
    // Stryker disable next-line BooleanLiteral: a server runtime client never sends the outcomes it keeps (only a browser's flushes them); false keeps it from keeping them.
    sendClientReports: false,
    beforeSend: (event) => scrubEvent(event),
    // Tracing: whole transactions (not streamed spans), sent as the request ends, scrubbed like
    // events. Without a rate no span is ever recorded.
    ...(config.tracesSampleRate ? { tracesSampleRate: config.tracesSampleRate } : {}),
    traceLifecycle: 'static',
    beforeSendTransaction: (event) => scrubTransaction(event),
  };
  // The SDK's name and version in every event and envelope header, as Sentry's own SDKs write them
  // (`sentry.javascript.core`, @sentry/core's version, the package): Relay requires both in an
  // event's `sdk` (relay-event-schema/src/protocol/clientsdk.rs, `required = true`) and drops the
  // interface without them, and the envelope's `sdk` header names the sender to the ingest.
  applySdkMetadata(options, 'core');
  const client = new CountingClient(options, counts, offload);
  // Sent once the ingest took it; queued when it waits for the ingest (the queue's own counters say
  // when it leaves); an answer it refused counts as dropped, by its status. (No answer at all is a
  // drop the transport already told recordDroppedEvent about.)
  client.on('afterSendEvent', (event, response) => {
    const status = response.statusCode;
    if (status === undefined) return;
    const transaction = event.type === 'transaction';
    const count = transaction ? counts.transaction : counts.report;
    if (status === QUEUED_STATUS) count('queued', '');
    // (A final answer is never under 200.)
    else if (status < 300) count('sent', transaction ? '2xx' : '');
    else count('dropped', `ingest_${statusClass(status)}`);
  });
  return client;
}
