// The way envelopes reach the ingest, the tunnel's and the server's own (../node/transport.ts):
// POSTs an envelope to the ingest of one DSN, through a bounded pool of keep-alive connections,
// and reads back a bounded answer. DSN parsing and the ingest URL come from @sentry/core.
import http from 'node:http';
import https from 'node:https';
import { dsnFromString, getEnvelopeEndpointWithUrlEncodedAuth } from '@sentry/core';

/** Sentry's answers that the SDK reads: status, rate limits and back-off. */
export const PASSED_BACK_HEADERS = ['content-type', 'retry-after', 'x-sentry-rate-limits'];
/** What an answer of the ingest may say to the browser: a short body, never a long one passed on. */
export const MAX_PASSED_BACK_BODY = 512;

/** report-uri's content type (CSP Level 2): what Sentry's security endpoint takes. */
export const CSP_REPORT_TYPE = 'application/csp-report';

/**
 * What marks a report in the report queue as a CSP report, for Sentry's security endpoint rather
 * than the envelope endpoint (lib/reporting/queue/open.ts, sendByKind): kept with the entry, on
 * disk and through a hand-over, like the user agent beside it; never sent as it is (the security
 * endpoint's sender sets the content type itself).
 */
export const SECURITY_REPORT_MARK = { 'content-type': CSP_REPORT_TYPE } as const;

/** The ingest's answer is informational; more than this is not worth holding. */
const MAX_UPSTREAM_BODY = 16 * 1024;

export interface UpstreamAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface SendLimits {
  /** The whole exchange, connection to the answer's end; past it the send rejects as a timeout. */
  timeoutMs: number;
  /** Ends the exchange early (the browser left). */
  signal?: AbortSignal;
}

export interface Forwarder {
  /** Rejects when the ingest cannot be asked, does not answer within `timeoutMs`, or `signal` aborts. */
  send: (
    envelope: Uint8Array | string,
    headers: Record<string, string>,
    limits: SendLimits,
  ) => Promise<UpstreamAnswer>;
  /** Closes the idle connections to the ingest. */
  close: () => void;
}

export function createForwarder(dsn: string, maxConnections: number): Forwarder {
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The tunnel needs a valid DSN');
  return createIngestForwarder(new URL(getEnvelopeEndpointWithUrlEncodedAuth(components)), maxConnections);
}

/**
 * A DSN's security endpoint, where Sentry takes browsers' CSP reports (./security-reports.ts):
 * the envelope endpoint's base (@sentry/core's getBaseApiEndpoint, which it does not export) and
 * `security/` for the project, the public key as `sentry_key` (Relay's RequestMeta reads it there).
 */
export function securityEndpointOf(dsn: string): string {
  const components = dsnFromString(dsn);
  if (!components) throw new Error('The tunnel needs a valid DSN');
  // Stryker disable next-line StringLiteral: @sentry/core's parser always gives a key (its pattern needs one before the @); the default is for the type.
  const { protocol, host, port, path, projectId, publicKey = '' } = components;
  const base = `${protocol}://${host}${port ? `:${port}` : ''}${path ? `/${path}` : ''}/api/`;
  return `${base}${projectId}/security/?${new URLSearchParams({ sentry_key: publicKey })}`;
}

/** The same for an ingest's envelope endpoint, as the SDK hands a transport its URL. */
export function createIngestForwarder(ingestUrl: URL, maxConnections: number): Forwarder {
  const client = ingestUrl.protocol === 'https:' ? https : http;
  const agent = new client.Agent({ keepAlive: true, maxSockets: maxConnections });

  const send: Forwarder['send'] = (envelope, headers, { timeoutMs, signal }) =>
    new Promise((resolve, reject) => {
      // A timer of our own, not AbortSignal.timeout: a timeout signal inside AbortSignal.any() can
      // be garbage-collected before it fires (nodejs/node#57736), and the exchange then waits on a
      // hanging ingest for ever.
      const timer = setTimeout(() => {
        const error = timedOut();
        reject(error);
        upstream.destroy(error);
      }, timeoutMs);
      const settle =
        <T>(finish: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          finish(value);
        };
      resolve = settle(resolve);
      reject = settle(reject);
      const upstream = client.request(
        ingestUrl,
        {
          method: 'POST',
          agent,
          ...(signal ? { signal } : {}),
          headers: { ...headers, 'Content-Length': String(Buffer.byteLength(envelope)) },
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
      upstream.end(envelope);
    });

  return { send, close: () => agent.destroy() };
}

/** The error a send that ran out of time rejects with, named as AbortSignal.timeout names its own. */
function timedOut(): Error {
  const error = new Error('The ingest did not answer in time');
  error.name = 'TimeoutError';
  return error;
}

/** Why a send failed, as the browser is told: the ingest was too slow, or could not be reached. */
export function failureReason(error: unknown): 'timeout' | 'unreachable' {
  // By name, not class: the abort error is a DOMException, from another realm in some hosts.
  const name = (error as { name?: unknown } | null | undefined)?.name;
  return name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable';
}
