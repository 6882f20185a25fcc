// The same-origin tunnel: browsers POST Sentry envelopes here and the server forwards them to the
// ingest, so ad-blockers do not drop them and the page's CSP keeps connect-src 'self'.
//
// Envelope parsing, DSN parsing and the ingest URL come from @sentry/core. The forwarding policy is
// ours because Sentry's own forwarder (handleTunnelRequest) does not fit it: it has no size cap, a
// fixed 30 s upstream timeout, and it passes the visitor's IP (X-Sentry-Forwarded-For) and the full
// Referer (the page URL, query secrets included) on to the ingest.
const { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth, parseEnvelope } = require('@sentry/core');
const { log } = require('../log/json-line.js');
const { sendPlain: answer } = require('../http/plain-response.js');

/** Sentry's answers that the SDK reads: status, rate limits and back-off. */
const PASSED_BACK_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits'];
/** What we tell the ingest about the browser: its user agent, nothing else. */
const FORWARDED_HEADERS = ['user-agent'];

const DEFAULTS = { maxBytes: 1024 * 1024, timeoutMs: 5000, uploadTimeoutMs: 10_000 };

/**
 * @typedef {object} TunnelOptions
 * @property {string} dsn  The one DSN whose envelopes are forwarded.
 * @property {string} path  The same-origin path, e.g. `/k3x9q2a`.
 * @property {number} [maxBytes]  Larger envelopes get 413.
 * @property {number} [timeoutMs]  How long the ingest may take to answer.
 * @property {number} [uploadTimeoutMs]  How long a browser may take to send the body.
 * @property {typeof fetch} [fetchImpl]
 */

/**
 * Reads the body up to `maxBytes`; resolves null (after answering) when it is too large or too slow.
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 * @param {number} maxBytes
 * @param {number} uploadTimeoutMs
 * @returns {Promise<Buffer | null>}
 */
function readBody(req, res, maxBytes, uploadTimeoutMs) {
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = [];
    let size = 0;
    let settled = false;
    /** @param {Buffer | null} value */
    const settle = (value) => {
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
    req.on('data', (/** @type {Buffer} */ chunk) => {
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
 * @param {Buffer} body
 * @returns {string | undefined}
 */
function envelopeDsn(body) {
  try {
    const [header] = parseEnvelope(new Uint8Array(body.buffer, body.byteOffset, body.length));
    return typeof header?.dsn === 'string' ? header.dsn : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {TunnelOptions} options
 * @returns {{ path: string, matches: (url: string | undefined) => boolean, handle: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void> }}
 */
function createTunnel(options) {
  const { dsn, path, fetchImpl = fetch } = options;
  const maxBytes = options.maxBytes ?? DEFAULTS.maxBytes;
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const uploadTimeoutMs = options.uploadTimeoutMs ?? DEFAULTS.uploadTimeoutMs;
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The tunnel needs a valid DSN');
  const ingestUrl = getEnvelopeEndpointWithUrlEncodedAuth(components);

  /** @param {string | undefined} url */
  const matches = (url) => url === path || (url !== undefined && url.startsWith(`${path}?`));

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  async function handle(req, res) {
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

      /** @type {Record<string, string>} */
      const headers = { 'Content-Type': 'application/x-sentry-envelope' };
      for (const name of FORWARDED_HEADERS) {
        const value = req.headers[name];
        if (typeof value === 'string') headers[name] = value;
      }
      let upstream;
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
      /** @type {Record<string, string>} */
      const passed = {};
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

module.exports = { createTunnel, envelopeDsn, TUNNEL_DEFAULTS: DEFAULTS };
