// The Sentry side of server reporting: @sentry/core's server runtime client (no OpenTelemetry-based
// SDK; made in ./server-client.ts), whose transactions are prepared on a thread of their own in the
// production server (./transaction-thread.ts). Loaded by ./reporter.ts only when there is a DSN,
// like all of @sentry/core on the server (docs/own-server.md, "Start time").
import { getEnvelopeEndpointWithUrlEncodedAuth, makeDsn, Scope, setCurrentClient } from '@sentry/core';
import { beforeExit } from '../../lifecycle/state';
import { recordReport, recordTransaction } from '../../metrics/record';
import { shortReference } from '../reference';
import type { ServerErrorContext } from '../server-hook';
import type { Counts } from './counts';
import { createServerClient, type SentryConfig } from './server-client';
import { startTransactionThread, transactionWorkerSlot, type TransactionThread } from './transaction-thread';
import { deliverToIngest, makeServerTransport } from './transport';

export type { SentryConfig } from './server-client';

const FLUSH_TIMEOUT_MS = 2000;

/** Captures one error under the given id; never throws. */
export type SentrySender = (
  error: unknown,
  id: string,
  context: ServerErrorContext,
  path: string | undefined,
) => void;

const METRICS: Counts = { report: recordReport, transaction: recordTransaction };

/**
 * The thread that prepares transactions (./transaction-thread.ts), when the server named its file
 * and there are transactions to prepare; null otherwise, and transactions are prepared here.
 */
function transactionThread(config: SentryConfig): TransactionThread | null {
  const workerFile = transactionWorkerSlot.read();
  if (!workerFile || !config.tracesSampleRate) return null;
  const dsn = makeDsn(config.dsn);
  if (!dsn) return null;
  const deliver = deliverToIngest(getEnvelopeEndpointWithUrlEncodedAuth(dsn));
  return startTransactionThread(workerFile, config, deliver, METRICS);
}

export function createSentrySender(config: SentryConfig): SentrySender {
  const thread = transactionThread(config);
  const client = createServerClient(config, METRICS, makeServerTransport(), thread);
  setCurrentClient(client);
  client.init();
  beforeExit('error-reports', () =>
    Promise.all([client.flush(FLUSH_TIMEOUT_MS), thread?.flush(FLUSH_TIMEOUT_MS)]),
  );

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
