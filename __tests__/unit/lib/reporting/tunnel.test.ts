/** @jest-environment node */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import { createTunnel } from '../../../../lib/reporting/tunnel';

const DSN = 'http://publickey@127.0.0.1:9/7';
const PATH = '/t3st';

interface Forwarded {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

let ingest: Server;
let forwarded: Forwarded[];
let ingestAnswer: (res: import('node:http').ServerResponse) => void;
let app: Server;
let base: string;
let tunnelDsn: string;

function envelope(dsn: string) {
  return `{"event_id":"${'b'.repeat(32)}","dsn":"${dsn}"}\n{"type":"event"}\n{"message":"hello"}\n`;
}

beforeAll(async () => {
  ingest = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      forwarded.push({ url: req.url ?? '', headers: req.headers, body });
      ingestAnswer(res);
    });
  });
  await new Promise<void>((resolve) => ingest.listen(0, '127.0.0.1', resolve));
  tunnelDsn = DSN.replace(':9/', `:${(ingest.address() as AddressInfo).port}/`);
  const tunnel = createTunnel({
    dsn: tunnelDsn,
    path: PATH,
    maxBytes: 4096,
    timeoutMs: 300,
    uploadTimeoutMs: 300,
  });
  app = createServer((req, res) => {
    if (tunnel.matches(req.url)) void tunnel.handle(req, res);
    else res.writeHead(418).end();
  });
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
});

afterAll(async () => {
  ingest.closeAllConnections();
  app.closeAllConnections();
  await Promise.all([new Promise((r) => ingest.close(r)), new Promise((r) => app.close(r))]);
});

beforeEach(() => {
  forwarded = [];
  ingestAnswer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"x"}');
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => jest.restoreAllMocks());

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${PATH}`, { method: 'POST', body, headers });

describe('the tunnel', () => {
  it('matches only its own path, with or without a query string', () => {
    const tunnel = createTunnel({ dsn: DSN, path: PATH });
    expect(tunnel.matches('/t3st')).toBe(true);
    expect(tunnel.matches('/t3st?sentry_key=x')).toBe(true);
    expect(tunnel.matches('/t3st/x')).toBe(false);
    expect(tunnel.matches('/t3stx')).toBe(false);
    expect(tunnel.matches(undefined)).toBe(false);
  });

  it('forwards the raw bytes to the ingest endpoint with the user agent and nothing else', async () => {
    const body = envelope(tunnelDsn);
    const res = await post(body, {
      'user-agent': 'Browser/1',
      cookie: 'session=s',
      authorization: 'Bearer t',
      referer: 'https://app.test/?token=secret',
      'x-forwarded-for': '203.0.113.9',
      origin: 'https://app.test',
    });
    expect(res.status).toBe(200);
    expect(forwarded).toHaveLength(1);
    const target = new URL(forwarded[0]!.url, 'http://ingest');
    expect(target.pathname).toBe('/api/7/envelope/');
    expect(target.searchParams.get('sentry_key')).toBe('publickey');
    expect(forwarded[0]!.body).toBe(body);
    expect(forwarded[0]!.headers['content-type']).toBe('application/x-sentry-envelope');
    expect(forwarded[0]!.headers['user-agent']).toBe('Browser/1');
    for (const name of [
      'cookie',
      'authorization',
      'referer',
      'x-forwarded-for',
      'x-sentry-forwarded-for',
      'origin',
    ]) {
      expect(forwarded[0]!.headers[name]).toBeUndefined();
    }
  });

  it('passes back the ingest status and rate-limit headers', async () => {
    ingestAnswer = (res) =>
      res
        .writeHead(429, { 'retry-after': '30', 'x-sentry-rate-limits': '30:error:key', 'x-other': 'no' })
        .end();
    const res = await post(envelope(tunnelDsn));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.get('x-sentry-rate-limits')).toBe('30:error:key');
    expect(res.headers.get('x-other')).toBeNull();
  });

  it.each([
    ['another key', DSN.replace('publickey', 'otherkey')],
    ['another project', DSN.replace('/7', '/8')],
    ['another host', DSN.replace('127.0.0.1', 'example.org')],
    ['the same host with an explicit default port', 'http://publickey@127.0.0.1:80/7'],
  ])('refuses an envelope for %s with 403 and forwards nothing', async (_name, dsn) => {
    const res = await post(envelope(dsn.replace(':9/', ':1/')));
    expect(res.status).toBe(403);
    expect(forwarded).toEqual([]);
  });

  it.each([
    ['an empty body', '', 400],
    ['garbage', 'not an envelope at all', 400],
    ['a header without a DSN', '{"event_id":"x"}\n{"type":"event"}\n{}\n', 400],
    ['a truncated envelope', '{"dsn":"http://publickey@127.0', 400],
  ])('refuses %s', async (_name, body, status) => {
    const res = await post(body);
    expect(res.status).toBe(status);
    expect(forwarded).toEqual([]);
  });

  it('answers GET with 405 and Allow: POST', async () => {
    const res = await fetch(`${base}${PATH}`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers an oversized envelope with 413, declared or not', async () => {
    expect((await post(envelope(tunnelDsn) + 'x'.repeat(5000))).status).toBe(413);
    // Chunked, so no Content-Length gives it away.
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${base}${PATH}`, { method: 'POST' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.write(envelope(tunnelDsn));
      req.end('y'.repeat(5000));
    });
    expect(chunked).toBe(413);
    expect(forwarded).toEqual([]);
  });

  it('answers a slow upload with 408 instead of waiting for it', async () => {
    const status = await new Promise<number>((resolve) => {
      const req = request(
        `${base}${PATH}`,
        { method: 'POST', headers: { 'content-length': '500' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', () => resolve(-1));
      req.write('{"dsn":'); // and then nothing more
      setTimeout(() => req.destroy(), 2000);
    });
    expect(status).toBe(408);
    expect(forwarded).toEqual([]);
  });

  it('answers 504 within its timeout when the ingest does not answer', async () => {
    ingestAnswer = () => {};
    const started = Date.now();
    const res = await post(envelope(tunnelDsn));
    expect(res.status).toBe(504);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('answers 502 at once when the ingest refuses connections', async () => {
    const closed = createTunnel({ dsn: 'http://publickey@127.0.0.1:1/7', path: PATH, timeoutMs: 5000 });
    const server = createServer((req, res) => void closed.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`, {
      method: 'POST',
      body: envelope('http://publickey@127.0.0.1:1/7'),
    });
    expect(res.status).toBe(502);
    expect(Date.now() - started).toBeLessThan(1000);
    await new Promise((r) => server.close(r));
  });

  it('carries the security headers and is never cached', async () => {
    const res = await post(envelope(tunnelDsn));
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});
