// The same-origin tunnel: browsers POST Sentry envelopes here and the server forwards them to the
// ingest, so ad-blockers do not drop them and the page's CSP keeps connect-src 'self'. It carries
// only this app's own error reports, and a stranger's traffic costs bounded time and memory.
//
// This file only reads, forwards and writes: what to do is ./policy.ts (with the envelope check,
// ./envelope.ts), the transport is ./forward.ts, reading a bounded body is lib/http/upload.ts.
// docs/tunnel.md says why Sentry's own forwarder (handleTunnelRequest) does not fit.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerThenDiscard, type LingerLimits } from '../../http/linger';
import { sendPlain } from '../../http/plain-response';
import { createUploadBudget, readUpload, type UploadLimits } from '../../http/upload';
import { errorFields, log } from '../../log/logger';
import { recordTunnel, statusClass } from '../../metrics/record';
import type { ReportQueue } from '../queue/queue';
import {
  createForwarder,
  createIngestForwarder,
  failureReason,
  MAX_PASSED_BACK_BODY,
  SECURITY_REPORT_MARK,
  securityEndpointOf,
} from '../ingest/forward';
import { SECURITY_REPORT_HEADERS } from '../ingest/ingest-worker';
import {
  createReportRate,
  isSecurityReport,
  judgeSecurityReports,
  MAX_BYTES as MAX_SECURITY_REPORT_BYTES,
  SECURITY_RATE,
} from './security-reports';
import {
  admit,
  forwardFailed,
  judge,
  queueFull,
  refusedUpload,
  browserHeaders,
  type Answer,
  type Forward,
  type HangUp,
} from './policy';

export const TUNNEL_DEFAULTS = {
  maxBytes: 1024 * 1024,
  timeoutMs: 5000,
  /** No upload takes longer than this, however long it is. */
  uploadTimeoutMs: 10_000,
  /** Every upload gets this long, however short it is… */
  uploadGraceMs: 2000,
  /** …plus its declared length at this rate (a slow mobile line manages several times more). */
  uploadMinBytesPerSecond: 16 * 1024,
  /**
   * What all uploads may hold at once, read or being forwarded. Memory runs to about three times
   * this under a flood: bytes an upload gives back when it stops fitting, and the chunks a whole
   * body was joined from, stay allocated until V8's next full collection (reliability suite,
   * "tunnel flood"). 16 MiB is still 16 uploads at the 1 MiB cap, or thousands of real reports.
   */
  maxBufferedBytes: 16 * 1024 * 1024,
  /**
   * After an early refusal (413, 503), the most of the body's rest read and thrown away so that
   * the answer reaches the browser (lib/http/linger.ts); a larger rest is cut off unread. It costs
   * bandwidth, never memory, and no longer than the longest upload (`uploadTimeoutMs`).
   */
  discardBytes: 4 * 1024 * 1024,
  /** Connections to the ingest at once; further forwards wait for one. */
  upstreamConnections: 8,
};

export interface TunnelOptions {
  /** The one DSN whose envelopes are forwarded. */
  dsn: string;
  /** The same-origin path, e.g. `/k3x9q2a`. */
  path: string;
  /** Larger envelopes get 413. */
  maxBytes?: number;
  /** How long the ingest may take to answer. */
  timeoutMs?: number;
  /** The longest a browser may take to send a body. */
  uploadTimeoutMs?: number;
  uploadGraceMs?: number;
  uploadMinBytesPerSecond?: number;
  /** Uploads that would hold more than this get 503 with Retry-After. */
  maxBufferedBytes?: number;
  discardBytes?: number;
  upstreamConnections?: number;
  /**
   * The server's report queue (../queue/): envelopes go through it, and wait there while the ingest
   * is away. Without one (tests of the tunnel alone) each is forwarded once, here.
   */
  queue?: ReportQueue;
  /** How many CSP reports may leave a second, and at once (./security-reports.ts). */
  securityRate?: { perSecond: number; burst: number };
  /** The clock of that rate (tests). */
  now?: () => number;
}

export interface Tunnel {
  path: string;
  matches: (url: string | undefined) => boolean;
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Bytes of envelopes held right now, being read or forwarded. */
  bufferedBytes: () => number;
  /** Closes the idle connections to the ingest. */
  close: () => void;
}

/** Writes an answer verdict, then deals with the body it did not read. */
function respond(
  req: IncomingMessage,
  res: ServerResponse,
  verdict: Answer | HangUp,
  discardLimits: LingerLimits,
) {
  if (verdict.kind === 'hang-up') {
    recordTunnel('abandoned', 'upload_aborted');
    return void req.destroy();
  }
  recordTunnel(verdict.outcome, verdict.reason);
  // Declared or not, the rest is read within bounds and discarded, then the connection closes:
  // closing on unread bytes would reset it, and the reset can overtake the answer.
  if (verdict.rest === 'drain') return answerThenDiscard(req, res, verdict, discardLimits);
  // 'close' needs nothing more: such an answer says `Connection: close`, and Node closes the
  // connection once it is sent.
  sendPlain(res, verdict.status, verdict.message, verdict.headers);
}

export function createTunnel(options: TunnelOptions): Tunnel {
  const { dsn, path } = options;
  const timeoutMs = options.timeoutMs ?? TUNNEL_DEFAULTS.timeoutMs;
  const limits: UploadLimits = {
    maxBytes: options.maxBytes ?? TUNNEL_DEFAULTS.maxBytes,
    maxMs: options.uploadTimeoutMs ?? TUNNEL_DEFAULTS.uploadTimeoutMs,
    graceMs: options.uploadGraceMs ?? TUNNEL_DEFAULTS.uploadGraceMs,
    minBytesPerSecond: options.uploadMinBytesPerSecond ?? TUNNEL_DEFAULTS.uploadMinBytesPerSecond,
  };
  // SECURITY: memory is bounded by the bytes all uploads hold together, not by how many there are:
  // clients that trickle a byte a second hold nothing, and real reports still fit beside them.
  const budget = createUploadBudget(options.maxBufferedBytes ?? TUNNEL_DEFAULTS.maxBufferedBytes);
  // What the rest of a refused body may cost: no more than an upload may.
  const discardLimits: LingerLimits = {
    maxBytes: options.discardBytes ?? TUNNEL_DEFAULTS.discardBytes,
    maxMs: limits.maxMs,
  };
  const forwarder = createForwarder(dsn, options.upstreamConnections ?? TUNNEL_DEFAULTS.upstreamConnections);
  // CSP reports (./security-reports.ts): smaller bodies than envelopes, within the same budget, and
  // a rate of their own. Made on the first report: most processes never see one.
  const securityLimits: UploadLimits = {
    ...limits,
    maxBytes: Math.min(limits.maxBytes, MAX_SECURITY_REPORT_BYTES),
  };
  const securityRate = createReportRate(options.securityRate ?? SECURITY_RATE, options.now);
  let securityForwarder: ReturnType<typeof createIngestForwarder> | null = null;

  const matches = (url: string | undefined) =>
    url === path || (url !== undefined && url.startsWith(`${path}?`));

  /** Through the queue: the ingest's answer, or "accepted" while it waits, or "try later" when full. */
  async function enqueue(res: ServerResponse, verdict: Forward, queue: ReportQueue): Promise<Answer | null> {
    const submitted = await queue.submit('browser', verdict.envelope, verdict.headers);
    if (submitted.kind === 'full') return queueFull();
    if (submitted.kind === 'queued') {
      recordTunnel('queued', 'ingest_unavailable');
      sendPlain(res, 202, 'Accepted; it will reach the reporting service when that is back.');
      return null;
    }
    const { reply } = submitted;
    recordTunnel('forwarded', statusClass(reply.status));
    const headers: Record<string, string> = {};
    if (reply.retryAfter) headers['retry-after'] = reply.retryAfter;
    if (reply.rateLimits) headers['x-sentry-rate-limits'] = reply.rateLimits;
    sendPlain(res, reply.status, reply.body.slice(0, MAX_PASSED_BACK_BODY), headers);
    return null;
  }

  async function forward(res: ServerResponse, verdict: Forward): Promise<Answer | null> {
    if (options.queue) return enqueue(res, verdict, options.queue);
    // The upstream request ends with the browser's: a visitor who leaves costs nothing more.
    // (Once the answer is sent, the close that follows aborts a request that has already ended.)
    const browserGone = new AbortController();
    res.once('close', () => browserGone.abort());
    try {
      const upstream = await forwarder.send(verdict.envelope, verdict.headers, {
        timeoutMs,
        signal: browserGone.signal,
      });
      recordTunnel('forwarded', statusClass(upstream.status));
      sendPlain(res, upstream.status, upstream.body.slice(0, MAX_PASSED_BACK_BODY), upstream.headers);
      return null;
    } catch (error) {
      if (browserGone.signal.aborted) {
        recordTunnel('abandoned', 'browser_gone');
        return null;
      }
      const reason = failureReason(error);
      log('warn', 'reporting.tunnel_forward_failed', { reason });
      return forwardFailed(reason);
    }
  }

  /** One CSP report on its way: through the queue (which keeps it while the ingest is away), or straight. */
  async function sendSecurityReport(req: IncomingMessage, report: string): Promise<boolean> {
    const agent = browserHeaders(req);
    if (options.queue) {
      const submitted = await options.queue.submit('browser', report, { ...SECURITY_REPORT_MARK, ...agent });
      if (submitted.kind === 'full') return false;
      return submitted.kind === 'queued' || submitted.reply.status < 300;
    }
    securityForwarder ??= createIngestForwarder(
      new URL(securityEndpointOf(dsn)),
      options.upstreamConnections ?? TUNNEL_DEFAULTS.upstreamConnections,
    );
    const upstream = await securityForwarder.send(
      report,
      { ...agent, ...SECURITY_REPORT_HEADERS },
      { timeoutMs },
    );
    return upstream.status < 300;
  }

  /**
   * A browser's CSP violation reports (report-uri's one, or a report-to batch): each checked report
   * forwarded on its own to Sentry's security endpoint, within the rate. Answered 204 (a browser
   * reads nothing of it) once each is taken or waits; a fixed refusal otherwise.
   */
  async function handleSecurityReports(req: IncomingMessage, res: ServerResponse) {
    const upload = await readUpload(req, budget, securityLimits);
    try {
      const early = refusedUpload(upload);
      if (early) return respond(req, res, early, discardLimits);
      if (upload.kind !== 'body') return;
      const verdict = judgeSecurityReports(req.headers['content-type'], upload.body);
      if (verdict.kind === 'refused') {
        recordTunnel('refused', verdict.reason);
        return sendPlain(res, verdict.status, verdict.message);
      }
      // The batch's CSP reports past its bound, or with no directive to file them under: counted, as
      // every report the tunnel does not send is (the body's bound, 64 KiB, bounds this loop).
      for (let left = verdict.dropped; left > 0; left -= 1) recordTunnel('refused', 'security_left_out');
      let taken = 0;
      for (const report of verdict.reports) {
        if (!securityRate.take()) {
          recordTunnel('refused', 'security_rate');
          continue;
        }
        // Stryker disable next-line ArrowFunction: undefined is as falsy as false: the report counts as not taken either way.
        const sent = await sendSecurityReport(req, report).catch(() => false);
        recordTunnel(sent ? 'forwarded' : 'upstream_failed', 'security_report');
        // Stryker disable next-line AssignmentOperator: only whether any was taken is read (taken === 0), and one less than none is not none either.
        if (sent) taken += 1;
      }
      if (taken === 0)
        return sendPlain(res, 503, 'The report could not be taken now.', { 'Retry-After': '60' });
      res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
    } finally {
      if (upload.kind === 'body') upload.release();
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    try {
      const refused = admit(req);
      if (refused) return respond(req, res, refused, discardLimits);
      if (isSecurityReport(req.headers['content-type'])) return await handleSecurityReports(req, res);
      const upload = await readUpload(req, budget, limits);
      try {
        const verdict = judge(req, upload, dsn);
        if (verdict.kind !== 'forward') return respond(req, res, verdict, discardLimits);
        const failed = await forward(res, verdict);
        if (failed) respond(req, res, failed, discardLimits);
      } finally {
        if (upload.kind === 'body') upload.release();
      }
    } catch (error) {
      // The tunnel must never take the server down with it.
      log('error', 'reporting.tunnel_failed', { error: errorFields(error) });
      recordTunnel('refused', 'internal_error');
      sendPlain(res, 500, 'Tunnel error.');
    }
  }

  return { path, matches, handle, bufferedBytes: () => budget.held(), close: forwarder.close };
}
