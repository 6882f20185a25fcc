// The server's one report queue, made at start with a DSN (lib/server/start.ts): its store (the
// folder, or memory), how it reaches the ingest (the ingest thread, else this thread), and its
// counts in /metrics. Put in a process slot for the server's own transport, which Next bundles.
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth } from '@sentry/core';
import { ConfigurationError } from '../../config/configuration-error';
import { log } from '../../log/logger';
import { recordQueue } from '../../metrics/record';
import type { IngestLimits, IngestSenders } from '../ingest/ingest-messages';
import { SECURITY_REPORT_MARK, securityEndpointOf } from '../ingest/forward';
import { sendFromThisThread } from '../ingest/ingest-worker';
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
  /** How long the folder's check may take (FOLDER_CHECK_MS). */
  folderCheckMs?: number;
}

/** The envelope endpoint of a DSN, as the tunnel forwards to it. */
export function ingestUrlOf(dsn: string): string {
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The report queue needs a valid DSN');
  return getEnvelopeEndpointWithUrlEncodedAuth(components);
}

const isSecurityReport = (headers: Record<string, string>) =>
  headers['content-type'] === SECURITY_REPORT_MARK['content-type'];

/** The headers sent with an entry: all it was queued with but the mark. */
function withoutMark(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type'));
}

/** Envelopes to the envelope endpoint; CSP reports, by their mark, to the security endpoint. */
export function sendByKind(envelopes: IngestSend, securityReports: IngestSend): IngestSend {
  return (body, headers = {}) =>
    isSecurityReport(headers) ? securityReports(body, withoutMark(headers)) : envelopes(body, headers);
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

/** How long the folder's check may take at start: a file system that never answers stops the start. */
export const FOLDER_CHECK_MS = 5000;

/**
 * What a folder may lack for a while and get back (a full disk, too many open files, a failing
 * device): the queue then waits in memory and the app keeps serving. Anything else (no such place,
 * no permission, a read-only mount, a file in the way) is the setting's fault, and stops the start.
 */
const PASSING_CODES: ReadonlySet<string> = new Set(['ENOSPC', 'EDQUOT', 'EMFILE', 'ENFILE', 'EIO', 'ENOMEM']);

/** Makes the folder and writes and removes a file in it; rejects with the file system's error. */
async function probe(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  // Stryker disable next-line StringLiteral: any name the store never reads will do.
  const file = path.join(folder, `.probe-${process.pid}`);
  // Stryker disable next-line StringLiteral: what the probe holds is never read.
  await writeFile(file, '');
  await rm(file);
}

/** `work`, or a rejection with the code ETIMEDOUT once `ms` have passed. */
function within<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(), { code: 'ETIMEDOUT' })), ms);
    // Never what keeps the process up: at exit, or once the check is done.
    timer.unref();
  });
  // Stryker disable next-line ArrowFunction: the timer is unref'd; left, it only rejects a race already decided.
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

/**
 * The folder's store, once it is known to take a file, within FOLDER_CHECK_MS (Node's recursive
 * mkdir never returns under /proc). A passing fault leaves the queue in memory, said loudly: it must
 * not keep the app from serving. A folder that cannot be used (or a check that never ends) is a
 * ConfigurationError, said in one line at start (lib/server/cannot-start.ts).
 */
async function storeFor(folder: string | null, checkMs: number): Promise<EnvelopeStore> {
  if (!folder) return memoryStore();
  try {
    await within(probe(folder), checkMs);
    return folderStore(folder);
  } catch (error) {
    // Stryker disable next-line StringLiteral: file system errors carry a code; this is a guard.
    const code = String((error as NodeJS.ErrnoException).code ?? 'unknown');
    if (!PASSING_CODES.has(code))
      throw new ConfigurationError(
        code === 'ETIMEDOUT'
          ? `REPORT_QUEUE_DIR ${folder} did not answer within ${checkMs / 1000} s: set it to a folder on a disk, or leave it unset to keep reports in memory.`
          : `REPORT_QUEUE_DIR ${folder} cannot be used (${code}): set it to a folder this user may create and write, or leave it unset to keep reports in memory.`,
      );
    log('error', 'reporting.queue_folder_unusable', { folder, reason: code, fallback: 'memory' });
    return memoryStore();
  }
}

export async function openReportQueue(settings: QueueSettings): Promise<ReportQueue> {
  const queue = createReportQueue({
    store: await storeFor(settings.folder, settings.folderCheckMs ?? FOLDER_CHECK_MS),
    send: sendByKind(
      sendVia(ingestUrlOf(settings.dsn), settings.senders, settings.ingest),
      sendVia(securityEndpointOf(settings.dsn), settings.senders, settings.ingest),
    ),
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
