// The same-origin tunnel: browsers POST Sentry envelopes here and the server forwards them to the
// ingest, so ad-blockers do not drop them and the page's CSP keeps connect-src 'self'. It carries
// only this app's own error reports, and a stranger's traffic costs bounded time and memory.
//
// Envelope parsing, DSN parsing and the ingest URL come from @sentry/core. The forwarding policy is
// ours; docs/tunnel.md says why Sentry's own forwarder (handleTunnelRequest) does not fit.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth, parseEnvelope } from '@sentry/core';
import { sendPlain as answer } from '../http/plain-response';
import { log } from '../log/json-line';

/** Sentry's answers that the SDK reads: status, rate limits and back-off. */
const PASSED_BACK_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits'];
/** What we tell the ingest about the browser: its user agent, nothing else. */
const FORWARDED_HEADERS = ['user-agent'];
/** The only item type this app's SDK sends (no sessions, replays, feedback, check-ins or client reports). */
const FORWARDED_ITEM_TYPES = new Set(['event']);
/** The ingest's answer is informational; more than this is not worth holding. */
const MAX_UPSTREAM_BODY = 16 * 1024;

export const TUNNEL_DEFAULTS = {
  maxBytes: 1024 * 1024,
  timeoutMs: 5000,
  uploadTimeoutMs: 10_000,
  /** Uploads held at once: with maxBytes, the most memory envelopes can take (32 MiB). */
  maxConcurrent: 32,
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
  /** How long a browser may take to send the body. */
  uploadTimeoutMs?: number;
  /** Uploads beyond this many at once get 503 with Retry-After, unread. */
  maxConcurrent?: number;
  upstreamConnections?: number;
}

export interface Tunnel {
  path: string;
  matches: (url: string | undefined) => boolean;
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
  /** Uploads being read or forwarded right now. */
  inFlight: () => number;
  /** Closes the idle connections to the ingest. */
  close: () => void;
}

/** Reads the body up to `maxBytes`; resolves null (after answering) when it is too large or too slow. */
function readBody(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  uploadTimeoutMs: number,
): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (value: Buffer | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const timer = setTimeout(() => {
      answer(res, 408, 'Request body took too long', { Connection: 'close' });
      req.destroy();
      settle(null);
    }, uploadTimeoutMs);
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        answer(res, 413, 'Envelope too large', { Connection: 'close' });
        req.destroy();
        settle(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => settle(Buffer.concat(chunks)));
    req.on('error', () => settle(null));
    req.on('close', () => settle(null));
  });
}

export interface EnvelopeSummary {
  dsn: string | undefined;
  itemTypes: string[];
}

/** The envelope header's DSN and its items' types, via Sentry's own parser; null when it is no envelope. */
export function readEnvelope(body: Buffer): EnvelopeSummary | null {
  try {
    const [header, items] = parseEnvelope(new Uint8Array(body.buffer, body.byteOffset, body.length));
    return {
      dsn: typeof header?.dsn === 'string' ? header.dsn : undefined,
      itemTypes: items.map(([itemHeader]) => String((itemHeader as { type?: unknown }).type)),
    };
  } catch {
    return null;
  }
}

/**
 * Why a request's own headers say it comes from another site, or '' when they do not. Browsers
 * send Sec-Fetch-Site, which decides alone (a proxy may rewrite Host); Origin against Host covers
 * browsers that do not. Requests with neither (non-browser clients) still have to pass the DSN
 * and item checks.
 */
export function crossSiteReason(req: IncomingMessage): string {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string') return site === 'same-origin' ? '' : `Sec-Fetch-Site is ${site}`;
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
  body: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<UpstreamAnswer> {
  const client = ingestUrl.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const upstream = client.request(
      ingestUrl,
      { method: 'POST', agent, signal, headers: { ...headers, 'Content-Length': String(body.length) } },
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

export function createTunnel(options: TunnelOptions): Tunnel {
  const { dsn, path } = options;
  const maxBytes = options.maxBytes ?? TUNNEL_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? TUNNEL_DEFAULTS.timeoutMs;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? TUNNEL_DEFAULTS.uploadTimeoutMs;
  const maxConcurrent = options.maxConcurrent ?? TUNNEL_DEFAULTS.maxConcurrent;
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The tunnel needs a valid DSN');
  const ingestUrl = new URL(getEnvelopeEndpointWithUrlEncodedAuth(components));
  const agent = new (ingestUrl.protocol === 'https:' ? https : http).Agent({
    keepAlive: true,
    maxSockets: options.upstreamConnections ?? TUNNEL_DEFAULTS.upstreamConnections,
  });
  let inFlight = 0;

  const matches = (url: string | undefined) =>
    url === path || (url !== undefined && url.startsWith(`${path}?`));

  async function forwardChecked(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req, res, maxBytes, uploadTimeoutMs);
    if (body === null) return;
    if (body.length === 0) return answer(res, 400, 'Empty envelope');
    const envelope = readEnvelope(body);
    if (envelope === null || envelope.dsn === undefined) return answer(res, 400, 'Not a Sentry envelope');
    // SECURITY: only envelopes for this app's own DSN: the tunnel is no open relay into Sentry.
    if (envelope.dsn !== dsn) return answer(res, 403, 'This tunnel only forwards envelopes for its own DSN');
    // SECURITY: only what this app's SDK sends. Check-ins, feedback, sessions and the rest could
    // forge monitors or spend the project's quota.
    const refused = envelope.itemTypes.filter((type) => !FORWARDED_ITEM_TYPES.has(type));
    if (envelope.itemTypes.length === 0 || refused.length > 0) {
      return answer(
        res,
        400,
        `This tunnel only forwards error events (got ${refused.join(', ') || 'no item'})`,
      );
    }

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
        body,
        headers,
        AbortSignal.any([browserGone.signal, AbortSignal.timeout(timeoutMs)]),
      );
      answer(res, upstream.status, upstream.body, upstream.headers);
    } catch (error) {
      if (browserGone.signal.aborted) return;
      // By name, not class: the abort error is a DOMException, from another realm in some hosts.
      const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
      const timedOut = name === 'TimeoutError' || name === 'AbortError';
      log('warn', 'reporting.tunnel_forward_failed', { reason: timedOut ? 'timeout' : 'unreachable' });
      answer(
        res,
        timedOut ? 504 : 502,
        timedOut ? 'Error reporting service timed out' : 'Error reporting service unreachable',
      );
    } finally {
      res.off('close', onClose);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    try {
      if (req.method !== 'POST') return answer(res, 405, 'Use POST', { Allow: 'POST' });
      // SECURITY: another site's pages must not post through us.
      const crossSite = crossSiteReason(req);
      if (crossSite) return answer(res, 403, `Cross-site requests are refused (${crossSite})`);
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        // Answer without reading a body we will not forward.
        answer(res, 413, 'Envelope too large', { Connection: 'close' });
        req.resume();
        return;
      }
      // SECURITY: a bounded number of uploads at once, so a flood costs bounded memory. Beyond it
      // the answer comes at once, and the body is never read.
      if (inFlight >= maxConcurrent) {
        answer(res, 503, 'Too many reports at once; try again shortly', {
          'Retry-After': '5',
          Connection: 'close',
        });
        req.resume();
        return;
      }
      inFlight += 1;
      try {
        await forwardChecked(req, res);
      } finally {
        inFlight -= 1;
      }
    } catch (error) {
      // The tunnel must never take the server down with it.
      log('error', 'reporting.tunnel_failed', { message: String(error) });
      answer(res, 500, 'Tunnel error');
    }
  }

  return { path, matches, handle, inFlight: () => inFlight, close: () => agent.destroy() };
}
