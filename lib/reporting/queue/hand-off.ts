// Waiting reports outlive their pod: an instance that stops with envelopes still waiting for the
// ingest (an outage during a rolling update or a scale-down) hands them to a peer that is not
// stopping, which takes them into its own queue and delivers them as its own (docs/report-queue.md,
// "When the pod goes"). Kubernetes deletes a pod's emptyDir with the pod; without this, what waited
// there was lost exactly when operators needed it.
//
// Only a peer of the same deployment may hand reports over: each request carries the secret the
// pods share (REPORT_HANDOFF_SECRET, from a Kubernetes Secret). Everything else is refused before its
// body is read: 401 without the secret, 403 with another. A body is read within the bounds of every
// other upload (lib/http/upload.ts), and taken only if it is an envelope the tunnel's checks pass
// (../ingest/envelope.ts): a leaked secret, or a peer's bug, buys no room in the queue for junk.
// Written by hand: neither Sentry's SDK nor Relay hands a queue to a peer (Relay spools to its own
// disk and loses what a deleted pod held).
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { REPORTS_HANDOFF_PATH } from '../../fleet/paths';
import { sendProblem } from '../../http/problem';
import { createUploadBudget, readUpload, type UploadBudget, type UploadLimits } from '../../http/upload';
import type { Settings } from '../../config/settings';
import { log } from '../../log/logger';
import { recordQueue } from '../../metrics/record';
import { checkEnvelope, checkServerEnvelope, REFUSAL_ANSWERS, type Refusal } from '../ingest/envelope';
import type { HandedEnvelope, ReportQueue } from './queue';

/** The headers that carry an envelope's facts from one instance to the other. */
export const SOURCE_HEADER = 'x-app-shell-report-source';
export const QUEUED_AT_HEADER = 'x-app-shell-report-queued-at';
/** The headers it is sent to the ingest with, as JSON (a browser's user agent). */
export const INGEST_HEADERS_HEADER = 'x-app-shell-report-headers';
export const ENVELOPE_TYPE = 'application/x-sentry-envelope';
const BEARER = 'Bearer ';

/** An envelope larger is refused (413) and stays with its instance; the tunnel's own bound. */
export const HANDOFF_MAX_ENVELOPE_BYTES = 1024 * 1024;
/** Bytes every hand-off being read holds together, at most. */
export const HANDOFF_BUFFER_BYTES = 16 * 1024 * 1024;
/** The ingest headers' JSON, at most. */
const MAX_INGEST_HEADERS_CHARS = 2048;
const UPLOAD_LIMITS: UploadLimits = {
  maxBytes: HANDOFF_MAX_ENVELOPE_BYTES,
  graceMs: 2000,
  minBytesPerSecond: 256 * 1024,
  maxMs: 10_000,
};
/** Envelopes handed over at once. */
export const HANDOFF_CONCURRENCY = 4;
/** One peer's answer to one envelope, at most. */
export const HANDOFF_REQUEST_TIMEOUT_MS = 3000;

const digest = (text: string) => createHash('sha256').update(text).digest();

/** Whether `given` is the secret, compared in constant time (digests of equal length). */
function isSecret(given: string, secret: Buffer): boolean {
  return timingSafeEqual(digest(given), secret);
}

/** The ingest headers a peer sent, or null when they are not a small object of strings. */
function ingestHeadersOf(raw: string | undefined): Record<string, string> | null {
  if (raw === undefined) return {};
  if (raw.length > MAX_INGEST_HEADERS_CHARS) return null;
  try {
    const parsed = JSON.parse(raw) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
    const entries = Object.entries(parsed);
    return entries.every(([, value]) => typeof value === 'string')
      ? (Object.fromEntries(entries) as Record<string, string>)
      : null;
  } catch {
    return null;
  }
}

/** The settings that decide whether reports waiting at a stop can go to a peer. */
export type HandOffSettings = Pick<
  Settings,
  'sentryDsn' | 'reportQueueDir' | 'fleetPeers' | 'reportHandoffSecret'
>;

/**
 * The start's warning that waiting reports will go with the pod, or null. Said at start, beside the
 * decision (lib/server/start.ts), because the stop's `reporting.queue_handed_over` warning comes
 * when the reports are already lost. Only where a hand-off is plainly wanted: reports queue (a DSN),
 * in a folder meant to keep them, among peers, and no secret to hand them over with.
 */
export function handOffWarning(
  settings: HandOffSettings,
): { event: 'reporting.handoff_off'; fields: { message: string } } | null {
  const { sentryDsn, reportQueueDir, fleetPeers, reportHandoffSecret } = settings;
  if (!sentryDsn || !reportQueueDir || !fleetPeers || reportHandoffSecret) return null;
  return {
    event: 'reporting.handoff_off',
    fields: {
      message:
        'FLEET_PEERS and REPORT_QUEUE_DIR are set but REPORT_HANDOFF_SECRET is not: reports still waiting when this instance stops go with its pod instead of to a peer (docs/report-queue.md, "When the pod goes").',
    },
  };
}

/**
 * What a refused body is told, in the giver's terms; the status is the tunnel's for the same refusal
 * (../ingest/envelope.ts): 400 for a malformed envelope, unwanted by any peer (the giver keeps it
 * and offers the next), 403 for another DSN (this peer is the odd one: the giver moves on).
 */
const HANDOFF_DETAILS: Readonly<Record<Refusal, string>> = {
  'not-an-envelope': 'A hand-off is one Sentry envelope: this body is none.',
  'foreign-dsn':
    'This envelope is for another DSN than the one this instance reports to: hand it to a peer that shares it.',
  'not-one-item':
    "This envelope's items are not what this instance would send: a browser's holds one event, transaction, session or span, as the tunnel forwards.",
  'against-ingest-rules': REFUSAL_ANSWERS['against-ingest-rules'].message,
};

export interface HandOffStageOptions {
  queue: ReportQueue;
  secret: string;
  /** This instance's DSN, the queue's: an envelope for another is refused, as the tunnel refuses it. */
  dsn: string;
  /** False once this instance drains: a stopping instance takes nothing (its peer tries another). */
  accepting: () => boolean;
  budget?: UploadBudget;
}

/**
 * The receiving side: answers REPORTS_HANDOFF_PATH (and nothing else: false for other paths). A
 * 2xx only once the envelope is in this instance's queue (written to its folder, with one): the
 * giver forgets an envelope on that answer only.
 */
export function handOffStage({
  queue,
  secret,
  dsn,
  accepting,
  budget = createUploadBudget(HANDOFF_BUFFER_BYTES),
}: HandOffStageOptions): (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean {
  const expected = digest(secret);
  /** An answer that leaves the body unread: the connection closes after it rather than read on. */
  const refuse = (
    res: ServerResponse,
    status: number,
    detail: string,
    headers: Record<string, string> = {},
  ) => {
    res.shouldKeepAlive = false;
    sendProblem(res, status, detail, { headers });
  };
  const take = async (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'POST') {
      refuse(res, 405, 'Reports are handed over with POST.', { Allow: 'POST' });
      return;
    }
    const { authorization } = req.headers;
    if (!authorization?.startsWith(BEARER)) {
      refuse(
        res,
        401,
        `Only a peer of this deployment may hand reports over: ${BEARER}<REPORT_HANDOFF_SECRET>.`,
        {
          'WWW-Authenticate': 'Bearer realm="app-shell peers"',
        },
      );
      return;
    }
    if (!isSecret(authorization.slice(BEARER.length), expected)) {
      refuse(res, 403, 'Only a peer of this deployment may hand reports over: this is not its secret.');
      return;
    }
    if (!accepting()) {
      refuse(res, 503, 'This instance is stopping: hand the reports to another peer.');
      return;
    }
    if (req.headers['content-type'] !== ENVELOPE_TYPE) {
      refuse(res, 415, `A hand-off is one envelope, ${ENVELOPE_TYPE}.`);
      return;
    }
    const source = req.headers[SOURCE_HEADER];
    // Milliseconds since the epoch, in digits only.
    const queuedAt = String(req.headers[QUEUED_AT_HEADER]);
    const headers = ingestHeadersOf(req.headers[INGEST_HEADERS_HEADER] as string | undefined);
    if ((source !== 'server' && source !== 'browser') || !/^\d{1,15}$/.test(queuedAt) || !headers) {
      refuse(
        res,
        400,
        `A hand-off names its source (${SOURCE_HEADER}: server or browser), when it was queued (${QUEUED_AT_HEADER}: ms since the epoch) and, in JSON, its ingest headers (${INGEST_HEADERS_HEADER}).`,
      );
      return;
    }
    const upload = await readUpload(req, budget, UPLOAD_LIMITS);
    switch (upload.kind) {
      case 'too-large':
        refuse(res, 413, `An envelope handed over is at most ${HANDOFF_MAX_ENVELOPE_BYTES} bytes.`);
        return;
      case 'busy':
        refuse(res, 503, 'Too many hand-offs at once: hand the reports to another peer.');
        return;
      case 'too-slow':
        refuse(res, 408, 'The envelope came too slowly.');
        return;
      // The client is gone (or sent less than it declared): nobody is left to answer.
      // Stryker disable next-line BlockStatement: without it the read body is missing, adopting it throws, and the 500 goes to a closed socket all the same.
      case 'aborted':
        res.destroy();
        return;
    }
    try {
      // SECURITY: the secret says who sends, not what: a body is checked before it takes room in the
      // queue, a browser's as the tunnel checked it (and what is kept is what was checked), the
      // server's own as far as its shape and DSN go (../ingest/envelope.ts says why no further).
      const checked =
        source === 'browser' ? checkEnvelope(upload.body, dsn) : checkServerEnvelope(upload.body, dsn);
      if (!checked.ok) {
        sendProblem(res, REFUSAL_ANSWERS[checked.refusal].status, HANDOFF_DETAILS[checked.refusal]);
        return;
      }
      const body = typeof checked.envelope === 'string' ? Buffer.from(checked.envelope) : checked.envelope;
      const outcome = await queue.adopt({ source, body, headers, queuedAt: Number(queuedAt) });
      if (outcome === 'full') {
        sendProblem(res, 503, 'This instance has no room for more reports: hand them to another peer.');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
      res.end(JSON.stringify({ outcome }));
    } finally {
      upload.release();
    }
  };
  return (req, res, pathname) => {
    if (pathname !== REPORTS_HANDOFF_PATH) return false;
    take(req, res).catch(() => sendProblem(res, 500, 'The envelope could not be taken.'));
    return true;
  };
}

export interface HandOffOptions {
  queue: ReportQueue;
  /** The peers' base URLs (http://10.0.0.7:3000), known by identity: never this instance. */
  peers: () => string[];
  secret: string;
  /** The whole hand-off's time; what is not handed over by then stays. */
  timeoutMs: number;
  fetch?: typeof fetch;
  random?: () => number;
}

type Offer = 'taken' | 'unwanted' | 'refused';

/** One envelope to one peer: taken (2xx), unwanted anywhere (too large, malformed), or refused by it. */
async function offer(
  fetcher: typeof fetch,
  base: string,
  secret: string,
  envelope: HandedEnvelope,
  signal: AbortSignal,
): Promise<Offer> {
  try {
    const res = await fetcher(`${base}${REPORTS_HANDOFF_PATH}`, {
      method: 'POST',
      headers: {
        Authorization: `Bearer ${secret}`,
        'Content-Type': ENVELOPE_TYPE,
        [SOURCE_HEADER]: envelope.source,
        [QUEUED_AT_HEADER]: String(envelope.queuedAt),
        [INGEST_HEADERS_HEADER]: JSON.stringify(envelope.headers),
      },
      body: envelope.body as BodyInit,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(HANDOFF_REQUEST_TIMEOUT_MS)]),
    });
    await res.body?.cancel();
    if (res.ok) return 'taken';
    return res.status === 400 || res.status === 413 ? 'unwanted' : 'refused';
  } catch {
    return 'refused';
  }
}

/**
 * The giving side, when this instance stops: every waiting envelope to a peer, in a random order of
 * peers (so a fleet's stopping instances spread), moving on from a peer that refuses or fails. Never
 * rejects; logs what it did and what it left, and that is counted (app_report_queue_handed_over_total,
 * app_report_queue_left_at_exit_total).
 */
export async function handOffReports({
  queue,
  peers,
  secret,
  timeoutMs,
  fetch: fetcher = fetch,
  random = Math.random,
}: HandOffOptions): Promise<{ given: number; left: number }> {
  const waiting = () => {
    const { envelopes } = queue.stats();
    return envelopes.server + envelopes.browser;
  };
  if (waiting() === 0) return { given: 0, left: 0 };
  const bases = peers()
    .map((base) => ({ base, order: random() }))
    .sort((a, b) => a.order - b.order)
    .map(({ base }) => base);
  const signal = AbortSignal.timeout(timeoutMs);
  const gone = new Set<string>();
  const give = async (envelope: HandedEnvelope) => {
    for (const base of bases) {
      if (gone.has(base)) continue;
      const outcome = await offer(fetcher, base, secret, envelope, signal);
      if (outcome === 'taken') return true;
      if (outcome === 'unwanted') return false;
      gone.add(base);
    }
    return false;
  };
  const { given, left } =
    bases.length > 0
      ? await queue.handOver(give, { concurrency: HANDOFF_CONCURRENCY, signal })
      : { given: 0, left: waiting() };
  for (const [source, count] of Object.entries(queue.stats().envelopes))
    if (count > 0) recordQueue('left_at_exit', { source }, count);
  log(left > 0 ? 'warn' : 'info', 'reporting.queue_handed_over', {
    given,
    left,
    peers: bases.length,
    refusedBy: gone.size,
  });
  return { given, left };
}
