// How the server's own envelopes (error reports, transactions) reach the ingest: the SDK's
// createTransport (its rate limits: 429, Retry-After and X-Sentry-Rate-Limits honoured per
// category; its buffer, which bounds the envelopes in flight by count), bounded by bytes too, over
// the keep-alive node:http connections the tunnel uses (../ingest/forward.ts). The server's report
// queue (../queue/) sends them from a worker thread of their own (../ingest/ingest-thread.ts) and keeps
// them while the ingest is away.
//
// Not `fetch`: undici's web streams cost a traced request about a tenth of its CPU, and even
// node:http's client about a sixth on the request's thread (bench/README.md, "Tracing at rate 1").
import {
  type BaseTransportOptions,
  createTransport,
  type DataCategory,
  envelopeItemTypeToDataCategory,
  type EventDropReason,
  forEachEnvelopeItem,
  parseEnvelope,
  type Transport,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import { reportQueueSlot } from '../queue/queue';
import { transportResponseOf } from '../ingest/ingest-thread';
import { sendFromThisThread } from '../ingest/ingest-worker';

export const TRANSPORT_LIMITS = {
  /** The whole exchange with the ingest, connection to answer. */
  timeoutMs: 5000,
  /**
   * Connections to the ingest at once; more envelopes wait in the buffer below. One envelope per
   * exchange (an envelope holds one event or transaction), so this and the ingest's round trip set
   * how many a second can leave: 16 at 50 ms is 320.
   */
  connections: 16,
  /**
   * Envelopes in flight or waiting; past it the SDK drops one as `queue_overflow`. The SDK's
   * default (64) is a browser's: a server tracing a few hundred requests a second fills it in a
   * blink of the ingest's.
   */
  envelopes: 1024,
  /** Their bytes: past it an envelope is dropped as `queue_overflow` too, however few are held. */
  bytes: 8 * 1024 * 1024,
};

/** What the transport answers the SDK for an envelope that waits in the report queue. */
export const QUEUED_STATUS = 202;

/** What a drop is told to: the SDK's recordDroppedEvent, or the counts it would make. */
export type DropRecorder = (reason: EventDropReason, category: DataCategory) => void;

/**
 * How an envelope's bytes reach the ingest, answered as the SDK's transport reads an answer: `{}`
 * for one dropped on the way (told to `dropped`). Rejects when the ingest could not be asked.
 */
export type Delivery = (
  body: string | Uint8Array,
  dropped: DropRecorder,
) => Promise<TransportMakeRequestResponse>;

/**
 * To the ingest at `url`: through the server's report queue (../queue/) when there is one, which
 * sends from the ingest thread and keeps what waits for the ingest; without (unit tests, a bundle
 * alone), straight to the ingest from this thread.
 */
export function deliverToIngest(url: string, limits = TRANSPORT_LIMITS): Delivery {
  let inThread: ReturnType<typeof sendFromThisThread> | null = null;
  return async (body, dropped) => {
    const queue = reportQueueSlot.read();
    if (queue) {
      const submitted = await queue.submit('server', body);
      if (submitted.kind === 'answered') return transportResponseOf(submitted.reply);
      // 202: it waits in the queue, which counts what becomes of it (./server-client.ts).
      if (submitted.kind === 'queued') return { statusCode: QUEUED_STATUS };
      forEachEnvelopeItem(parseEnvelope(body), (_item, type) =>
        dropped('queue_overflow', envelopeItemTypeToDataCategory(type)),
      );
      return {};
    }
    inThread ??= sendFromThisThread(url, limits);
    return transportResponseOf(await inThread(body));
  };
}

/**
 * A transport for the server's client; `limits` for tests. `deliveryTo` makes the delivery for the
 * URL the SDK hands the transport: to the ingest (the default), or to the request's thread from
 * the transaction thread (./transaction-worker.ts).
 */
export function makeServerTransport(
  limits = TRANSPORT_LIMITS,
  deliveryTo: (url: string) => Delivery = (url) => deliverToIngest(url, limits),
) {
  return (options: BaseTransportOptions): Transport => {
    const deliver = deliveryTo(options.url);
    let heldBytes = 0;
    const transport = createTransport({ ...options, bufferSize: limits.envelopes }, async ({ body }) => {
      const size = Buffer.byteLength(body);
      heldBytes += size;
      try {
        return await deliver(body, options.recordDroppedEvent);
      } finally {
        heldBytes -= size;
      }
    });
    return {
      // SECURITY: memory is bounded by bytes, not only by count: a few huge reports cannot hold
      // more than `bytes` (plus the one envelope that crossed it).
      send(envelope) {
        if (heldBytes < limits.bytes) return transport.send(envelope);
        forEachEnvelopeItem(envelope, (_item, type) =>
          options.recordDroppedEvent('queue_overflow', envelopeItemTypeToDataCategory(type)),
        );
        return Promise.resolve({});
      },
      flush: (timeout) => transport.flush(timeout),
    };
  };
}
