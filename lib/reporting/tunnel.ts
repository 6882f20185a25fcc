// The same-origin tunnel: browsers POST Sentry envelopes here and the server forwards them to the
// ingest, so ad-blockers do not drop them and the page's CSP keeps connect-src 'self'. It carries
// only this app's own error reports, and a stranger's traffic costs bounded time and memory.
//
// DSN parsing, the ingest URL and the envelope's re-serialisation come from @sentry/core; the check
// is ./envelope.ts, reading the body is lib/http/upload.ts. The forwarding policy is ours;
// docs/tunnel.md says why Sentry's own forwarder (handleTunnelRequest) does not fit.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth } from '@sentry/core';
import { sendPlain as answer } from '../http/plain-response';
import { createUploadBudget, readUpload, type UploadLimits } from '../http/upload';
import { errorFields, log } from '../log/json-line';
import { checkEnvelope, REFUSAL_ANSWERS } from './envelope';

/** Sentry's answers that the SDK reads: status, rate limits and back-off. */
const PASSED_BACK_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits'];
/** What we tell the ingest about the browser: its user agent, nothing else. */
const FORWARDED_HEADERS = ['user-agent'];
/** The ingest's answer is informational; more than this is not worth holding. */
const MAX_UPSTREAM_BODY = 16 * 1024;
/** What an answer of the ingest may say to the browser: a short body, never a long one passed on. */
const MAX_PASSED_BACK_BODY = 512;

export const TUNNEL_DEFAULTS = {
  maxBytes: 1024 * 1024,
  timeoutMs: 5000,
  /** No upload takes longer than this, however long it is. */
  uploadTimeoutMs: 10_000,
  /** Every upload gets this long, however short it is… */
  uploadGraceMs: 2000,
  /** …plus its declared length at this rate (a slow mobile line manages several times more). */
  uploadMinBytesPerSecond: 16 * 1024,
  /** What all uploads may hold at once, read or being forwarded: the most memory envelopes take. */
  maxBufferedBytes: 32 * 1024 * 1024,
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
  upstreamConnections?: number;
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

/**
 * Why a request's own headers say it comes from another site, or '' when they do not. Browsers
 * send Sec-Fetch-Site, which decides alone (a proxy may rewrite Host); Origin against Host covers
 * browsers that do not. Requests with neither (non-browser clients) still have to pass the DSN
 * and item checks.
 */
export function crossSiteReason(req: IncomingMessage): string {
  const site = req.headers['sec-fetch-site'];
  // Fixed words, never the header's value: an answer must not echo what a stranger sent.
  if (typeof site === 'string') return site === 'same-origin' ? '' : 'Sec-Fetch-Site is not same-origin';
  const origin = req.headers.origin;
  if (typeof origin !== 'string') return '';
  try {
    return new URL(origin).host === req.headers.host ? '' : 'Origin is another site';
  } catch {
    return 'Origin is not a URL';
  }
}

interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** POSTs the envelope to the ingest through a bounded pool of connections; aborted by `signal`. */
function forward(
  ingestUrl: URL,
  agent: http.Agent,
  body: Uint8Array | string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const client = ingestUrl.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const upstream = client.request(
      ingestUrl,
      {
        method: 'POST',
        agent,
        signal,
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_UPSTREAM_BODY) chunks.push(chunk);
        });
        response.on('end', () => {
          const passed: Record<string, string> = {};
          for (const name of PASSED_BACK_HEADERS) {
            const value = response.headers[name];
            if (typeof value === 'string') passed[name] = value;
          }
          resolve({
            status: response.statusCode ?? 502,
            headers: passed,
            body: Buffer.concat(chunks).toString(),
          });
        });
        response.on('error', reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(body);
  });
}

/**
 * After a refusal: the rest of the body is discarded as it arrives when a declared length bounds
 * it; a chunked body, which nothing bounds, closes the connection.
 */
function discardRest(req: IncomingMessage): void {
  if (req.headers['content-length'] === undefined) req.destroy();
  else req.resume();
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
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The tunnel needs a valid DSN');
  const ingestUrl = new URL(getEnvelopeEndpointWithUrlEncodedAuth(components));
  const agent = new (ingestUrl.protocol === 'https:' ? https : http).Agent({
    keepAlive: true,
    maxSockets: options.upstreamConnections ?? TUNNEL_DEFAULTS.upstreamConnections,
  });

  const matches = (url: string | undefined) =>
    url === path || (url !== undefined && url.startsWith(`${path}?`));

  /** Reads the body, checks it and forwards what was checked; every refusal is a short, fixed answer. */
  async function readCheckForward(req: IncomingMessage, res: ServerResponse) {
    const upload = await readUpload(req, budget, limits);
    switch (upload.kind) {
      case 'too-large':
        answer(res, 413, 'Envelope too large.', { Connection: 'close' });
        return discardRest(req);
      case 'too-slow':
        answer(res, 408, 'The envelope took too long to arrive.', { Connection: 'close' });
        return req.destroy();
      case 'busy':
        answer(res, 503, 'Too many reports at once; try again shortly.', {
          'Retry-After': '5',
          Connection: 'close',
        });
        return discardRest(req);
      case 'aborted':
        return req.destroy();
      case 'body':
        break;
    }
    try {
      if (upload.body.length === 0) return answer(res, 400, 'Empty envelope.');
      const checked = checkEnvelope(upload.body, dsn);
      if (!checked.ok) {
        const refusal = REFUSAL_ANSWERS[checked.refusal];
        return answer(res, refusal.status, refusal.message);
      }
      await forwardChecked(req, res, checked.envelope);
    } finally {
      upload.release();
    }
  }

  async function forwardChecked(req: IncomingMessage, res: ServerResponse, envelope: Uint8Array | string) {
    const headers: Record<string, string> = { 'Content-Type': 'application/x-sentry-envelope' };
    for (const name of FORWARDED_HEADERS) {
      const value = req.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    // The upstream request ends with the browser's: a visitor who leaves costs nothing more.
    const browserGone = new AbortController();
    const onClose = () => {
      if (!res.writableFinished) browserGone.abort();
    };
    res.once('close', onClose);
    try {
      const upstream = await forward(
        ingestUrl,
        agent,
        envelope,
        headers,
        AbortSignal.any([browserGone.signal, AbortSignal.timeout(timeoutMs)]),
      );
      answer(res, upstream.status, upstream.body.slice(0, MAX_PASSED_BACK_BODY), upstream.headers);
    } catch (error) {
      if (browserGone.signal.aborted) return;
      // By name, not class: the abort error is a DOMException, from another realm in some hosts.
      const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      log('warn', 'reporting.tunnel_forward_failed', { reason: timedOut ? 'timeout' : 'unreachable' });
      answer(
        res,
        timedOut ? 504 : 502,
        timedOut ? 'Error reporting service timed out.' : 'Error reporting service unreachable.',
      );
    } finally {
      res.off('close', onClose);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    try {
      if (req.method !== 'POST') return answer(res, 405, 'Use POST.', { Allow: 'POST' });
      // SECURITY: another site's pages must not post through us.
      const crossSite = crossSiteReason(req);
      if (crossSite) return answer(res, 403, `Cross-site requests are refused (${crossSite}).`);
      await readCheckForward(req, res);
    } catch (error) {
      // The tunnel must never take the server down with it.
      log('error', 'reporting.tunnel_failed', { error: errorFields(error) });
      answer(res, 500, 'Tunnel error.');
    }
  }

  return { path, matches, handle, bufferedBytes: () => budget.held(), close: () => agent.destroy() };
}
