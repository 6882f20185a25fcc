// What the tunnel decides, and nothing it does: request metadata, the upload's outcome and the
// envelope in, a verdict out. No I/O here; ./index.ts reads, forwards and writes what this says.
import type { IncomingHttpHeaders } from 'node:http';
import { crossSiteReason } from '../../http/cross-site';
import type { UploadResult } from '../../http/upload';
import { checkEnvelope, REFUSAL_ANSWERS } from '../ingest/envelope';

/** What the tunnel's policy sees of a request. */
export interface TunnelRequest {
  method?: string;
  headers: IncomingHttpHeaders;
}

/**
 * What to do with a body the answer did not read: leave it; discard it (within bounds) so the
 * answer is read before the connection closes; or close once the answer is sent (such an answer
 * says `Connection: close`, which is what closes it).
 */
export type Rest = 'keep' | 'drain' | 'close';

export type Answer = {
  kind: 'answer';
  /** Whose answer it is, and why (one word of a fixed set): the labels of app_tunnel_envelopes_total. */
  outcome: 'refused' | 'upstream_failed';
  reason: string;
  status: number;
  message: string;
  headers?: Record<string, string>;
  rest: Rest;
};
export type Forward = { kind: 'forward'; envelope: Uint8Array | string; headers: Record<string, string> };
/** The browser went away or broke its promise: nothing to answer. */
export type HangUp = { kind: 'hang-up' };
export type Verdict = Answer | Forward | HangUp;

/** What we tell the ingest about the browser: its user agent, nothing else. */
const FORWARDED_HEADERS = ['user-agent'];
/** A user agent is a few hundred characters; one longer is cut (it waits beside its envelope). */
const MAX_FORWARDED_HEADER = 512;

const answer = (
  reason: string,
  status: number,
  message: string,
  rest: Rest = 'keep',
  headers?: Record<string, string>,
): Answer => ({
  kind: 'answer',
  outcome: 'refused',
  reason,
  status,
  message,
  rest,
  ...(headers ? { headers } : {}),
});

/** Before the body is read: a refusal, or null to read it. */
export function admit(request: TunnelRequest): Answer | null {
  if (request.method !== 'POST') return answer('method', 405, 'Use POST.', 'keep', { Allow: 'POST' });
  // SECURITY: another site's pages must not post through us.
  const crossSite = crossSiteReason(request.headers);
  if (crossSite) return answer('cross_site', 403, `Cross-site requests are refused (${crossSite}).`);
  return null;
}

/**
 * A body that did not arrive whole (too large, too slow, no room, the browser gone): its refusal;
 * null for a body read whole. The same for envelopes and for CSP reports (./security-reports.ts).
 */
export function refusedUpload(upload: UploadResult): Answer | HangUp | null {
  // A refusal before the whole body arrived closes the connection: nothing else may follow it.
  const early = { Connection: 'close' };
  switch (upload.kind) {
    case 'too-large':
      return answer('too_large', 413, 'Envelope too large.', 'drain', early);
    case 'too-slow':
      return answer('too_slow', 408, 'The envelope took too long to arrive.', 'close', early);
    case 'busy':
      return answer('busy', 503, 'Too many reports at once; try again shortly.', 'drain', {
        'Retry-After': '5',
        ...early,
      });
    case 'aborted':
      return { kind: 'hang-up' };
  }
  return null;
}

/** After the body was read: forward what was checked, or a short, fixed refusal. */
export function judge(request: TunnelRequest, upload: UploadResult, dsn: string): Verdict {
  const refused = refusedUpload(upload);
  if (refused || upload.kind !== 'body') return refused ?? { kind: 'hang-up' };
  if (upload.body.length === 0) return answer('empty', 400, 'Empty envelope.');
  const checked = checkEnvelope(upload.body, dsn);
  if (!checked.ok) {
    const refusal = REFUSAL_ANSWERS[checked.refusal];
    return answer(checked.refusal.replaceAll('-', '_'), refusal.status, refusal.message);
  }
  const headers = { 'Content-Type': 'application/x-sentry-envelope', ...browserHeaders(request) };
  return { kind: 'forward', envelope: checked.envelope, headers };
}

/** What the ingest is told of the browser (its user agent, cut short), for an envelope or a CSP report. */
export function browserHeaders(request: TunnelRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers[name] = value.slice(0, MAX_FORWARDED_HEADER);
  }
  return headers;
}

/** What the browser is told when the ingest could not be asked. */
export function forwardFailed(reason: 'timeout' | 'unreachable'): Answer {
  const said =
    reason === 'timeout'
      ? answer(reason, 504, 'Error reporting service timed out.')
      : answer(reason, 502, 'Error reporting service unreachable.');
  return { ...said, outcome: 'upstream_failed' };
}

/**
 * What the browser is told when the queue's share for browsers is full (an outage long enough, or
 * a flood): try later. The browser's SDK keeps the report meanwhile (lib/reporting/browser/transport.ts).
 */
export function queueFull(): Answer {
  return answer(
    'queue_full',
    503,
    'Too many reports are waiting for the reporting service; try again later.',
    'keep',
    {
      'Retry-After': '60',
    },
  );
}
