// The server's one report queue, made at start with a DSN (lib/server/start.ts): its store (the
// folder, or memory), how it reaches the ingest (the ingest thread, else this thread), and its
// counts in /metrics. Put in a process slot for the server's own transport, which Next bundles.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth } from '@sentry/core';
import { log } from '../../log/logger';
import { recordQueue } from '../../metrics/record';
import { type IngestLimits, type IngestSenders } from '../node/ingest-thread';
import { sendFromThisThread } from '../node/ingest-worker';
import {
  createReportQueue,
  type IngestSend,
  type QueueLimits,
  type ReportQueue,
  reportQueueSlot,
} from './queue';
import { type EnvelopeStore, folderStore, memoryStore } from './store';

export interface QueueSettings {
  dsn: string;
  /** Null: envelopes wait in memory and do not outlive the process. */
  folder: string | null;
  limits: Partial<QueueLimits>;
  /** The ingest thread's senders, when the server runs one. */
  senders: IngestSenders | null;
  ingest: IngestLimits;
}

/** The envelope endpoint of a DSN, as the tunnel forwards to it. */
export function ingestUrlOf(dsn: string): string {
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The report queue needs a valid DSN');
  return getEnvelopeEndpointWithUrlEncodedAuth(components);
}

/** How the queue reaches the ingest: its thread, or this one when there is none. */
function sendVia(url: string, senders: IngestSenders | null, ingest: IngestLimits): IngestSend {
  let inThread: ReturnType<typeof sendFromThisThread> | null = null;
  return (body, headers) => {
    const thread = senders?.(url, ingest);
    if (thread) return thread.send(body, headers);
    inThread ??= sendFromThisThread(url, ingest);
    return inThread(body, headers);
  };
}

/**
 * The folder's store, once it is known to take a file; else memory, said loudly: a folder that
 * cannot be written (a read-only mount, a full disk) must not keep the app from serving.
 */
async function storeFor(folder: string | null): Promise<EnvelopeStore> {
  if (!folder) return memoryStore();
  try {
    await mkdir(folder, { recursive: true });
    // Stryker disable next-line StringLiteral: any name the store never reads will do.
    const probe = path.join(folder, `.probe-${process.pid}`);
    // Stryker disable next-line StringLiteral: what the probe holds is never read.
    await writeFile(probe, '');
    await rm(probe);
    return folderStore(folder);
  } catch (error) {
    log('error', 'reporting.queue_folder_unusable', {
      folder,
      // Stryker disable next-line StringLiteral: file system errors carry a code; this is a guard.
      reason: (error as NodeJS.ErrnoException).code ?? 'unknown',
      fallback: 'memory',
    });
    return memoryStore();
  }
}

export async function openReportQueue(settings: QueueSettings): Promise<ReportQueue> {
  const queue = createReportQueue({
    store: await storeFor(settings.folder),
    send: sendVia(ingestUrlOf(settings.dsn), settings.senders, settings.ingest),
    limits: settings.limits,
    events: {
      queued: (source) => recordQueue('queued', { source }),
      sent: (source) => recordQueue('sent', { source }),
      retried: (reason) => recordQueue('retried', { reason }),
      dropped: (source, reason) => recordQueue('dropped', { source, reason }),
      handedOver: (source, direction) => recordQueue('handed_over', { source, direction }),
    },
  });
  await queue.start();
  reportQueueSlot.write(queue);
  return queue;
}
