// The same-origin tunnel: browsers POST Sentry envelopes here and the server forwards them to the
// ingest, so ad-blockers do not drop them and the page's CSP keeps connect-src 'self'.
//
// Envelope parsing, DSN parsing and the ingest URL come from @sentry/core. The forwarding policy is
// ours because Sentry's own forwarder (handleTunnelRequest) does not fit it: it has no size cap, a
// fixed 30 s upstream timeout, and it passes the visitor's IP (X-Sentry-Forwarded-For) and the full
// Referer (the page URL, query secrets included) on to the ingest.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth, parseEnvelope } from '@sentry/core';
import { sendPlain as answer } from '../http/plain-response';
import { log } from '../log/json-line';

/** Sentry's answers that the SDK reads: status, rate limits and back-off. */
const PASSED_BACK_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits'];
/** What we tell the ingest about the browser: its user agent, nothing else. */
const FORWARDED_HEADERS = ['user-agent'];

export const TUNNEL_DEFAULTS = { maxBytes: 1024 * 1024, timeoutMs: 5000, uploadTimeoutMs: 10_000 };

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
  fetchImpl?: typeof fetch;
}

export interface Tunnel {
  path: string;
  matches: (url: string | undefined) => boolean;
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>;
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

/**
 * The envelope header's DSN, via Sentry's own envelope parser; undefined when the body is not an
 * envelope. Never throws.
 */
export function envelopeDsn(body: Buffer): string | undefined {
  try {
    const [header] = parseEnvelope(new Uint8Array(body.buffer, body.byteOffset, body.length));
    return typeof header?.dsn === 'string' ? header.dsn : undefined;
  } catch {
    return undefined;
  }
}

export function createTunnel(options: TunnelOptions): Tunnel {
  const { dsn, path, fetchImpl = fetch } = options;
  const maxBytes = options.maxBytes ?? TUNNEL_DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? TUNNEL_DEFAULTS.timeoutMs;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? TUNNEL_DEFAULTS.uploadTimeoutMs;
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The tunnel needs a valid DSN');
  const ingestUrl = getEnvelopeEndpointWithUrlEncodedAuth(components);

  const matches = (url: string | undefined) =>
    url === path || (url !== undefined && url.startsWith(`${path}?`));

  async function handle(req: IncomingMessage, res: ServerResponse) {
    try {
      if (req.method !== 'POST') {
        answer(res, 405, 'Use POST', { Allow: 'POST' });
        return;
      }
      const declared = Number(req.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        // Answer without reading a body we will not forward.
        answer(res, 413, 'Envelope too large', { Connection: 'close' });
        req.resume();
        return;
      }
      const body = await readBody(req, res, maxBytes, uploadTimeoutMs);
      if (body === null) return;
      if (body.length === 0) {
        answer(res, 400, 'Empty envelope');
        return;
      }
      const envelopeFor = envelopeDsn(body);
      if (envelopeFor === undefined) {
        answer(res, 400, 'Not a Sentry envelope');
        return;
      }
      if (envelopeFor !== dsn) {
        answer(res, 403, 'This tunnel only forwards envelopes for its own DSN');
        return;
      }

      const headers: Record<string, string> = { 'Content-Type': 'application/x-sentry-envelope' };
      for (const name of FORWARDED_HEADERS) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      let upstream: Response;
      try {
        upstream = await fetchImpl(ingestUrl, {
          method: 'POST',
          headers,
          // A copy typed on a plain ArrayBuffer, which is what fetch accepts.
          body: new Uint8Array(body),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        // By name, not class: the abort error is a DOMException, from another realm in some hosts.
        const name = typeof error === 'object' && error !== null && 'name' in error ? String(error.name) : '';
        const timedOut = name === 'TimeoutError' || name === 'AbortError';
        log('warn', 'reporting.tunnel_forward_failed', { reason: timedOut ? 'timeout' : 'unreachable' });
        answer(
          res,
          timedOut ? 504 : 502,
          timedOut ? 'Error reporting service timed out' : 'Error reporting service unreachable',
        );
        return;
      }
      const passed: Record<string, string> = {};
      for (const name of PASSED_BACK_HEADERS) {
        const value = upstream.headers.get(name);
        if (value) passed[name] = value;
      }
      let text = '';
      try {
        text = await upstream.text();
      } catch {
        // The ingest's body is informational; its status and headers are what the SDK needs.
      }
      answer(res, upstream.status, text, passed);
    } catch (error) {
      // The tunnel must never take the server down with it.
      log('error', 'reporting.tunnel_failed', { message: String(error) });
      answer(res, 500, 'Tunnel error');
    }
  }

  return { path, matches, handle };
}
