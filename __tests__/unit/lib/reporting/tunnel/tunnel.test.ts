import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { recorderWith } from '../../../../support/recorder';
import { connect, type AddressInfo } from 'node:net';
import { request } from 'node:http';
import { recorderSlot } from '@lib/metrics/record';
import { createTunnel, TUNNEL_DEFAULTS } from '@lib/reporting/tunnel';
import { until } from '../../../../support/until';

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
let tunnel: ReturnType<typeof createTunnel>;

/** A payload of each type forwarded that keeps the ingest's rules (lib/reporting/ingest/ingest-rules.ts). */
const PAYLOADS: Record<string, string> = {
  transaction: `{"start_timestamp":1,"timestamp":2,"contexts":{"trace":{"trace_id":"${'c'.repeat(32)}","span_id":"${'d'.repeat(16)}"}}}`,
  session: '{"started":"2026-11-23T00:00:00Z","attrs":{"release":"r1"}}',
};

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
  tunnel = createTunnel({
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
  tunnel.close();
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
    const own = createTunnel({ dsn: DSN, path: PATH });
    expect(own.matches('/t3st')).toBe(true);
    expect(own.matches('/t3st?sentry_key=x')).toBe(true);
    expect(own.matches('/t3st/x')).toBe(false);
    expect(own.matches('/t3stx')).toBe(false);
    expect(own.matches(undefined)).toBe(false);
    own.close();
  });

  it('forwards the envelope it checked to the ingest endpoint with the user agent and nothing else', async () => {
    const body = envelope(tunnelDsn);
    const res = await post(body, {
      'user-agent': 'Browser/1',
      cookie: 'session=s',
      authorization: 'Bearer t',
      referer: 'https://app.test/?token=secret',
      'x-forwarded-for': '203.0.113.9',
      origin: base,
    });
    expect(res.status).toBe(200);
    expect(forwarded).toHaveLength(1);
    const target = new URL(forwarded[0]!.url, 'http://ingest');
    expect(target.pathname).toBe('/api/7/envelope/');
    expect(target.searchParams.get('sentry_key')).toBe('publickey');
    // Written anew from what was checked: the same envelope, without the trailing newline.
    expect(forwarded[0]!.body).toBe(body.trimEnd());
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

  it('passes back the ingest status, content type and rate-limit headers', async () => {
    ingestAnswer = (res) =>
      res
        .writeHead(429, {
          'content-type': 'application/json',
          'retry-after': '30',
          'x-sentry-rate-limits': '30:error:key',
          'x-other': 'no',
        })
        .end('{"detail":"rate limited"}');
    const res = await post(envelope(tunnelDsn));
    expect(res.status).toBe(429);
    // The ingest's body with its own type, not the tunnel's plain text.
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('retry-after')).toBe('30');
    expect(res.headers.get('x-sentry-rate-limits')).toBe('30:error:key');
    expect(res.headers.get('x-other')).toBeNull();
  });

  // Each differs from the live DSN in one component only, so each check is tested on its own.
  it.each([
    ['another key', () => tunnelDsn.replace('publickey', 'otherkey')],
    ['another project', () => tunnelDsn.replace(/\/7$/, '/8')],
    ['another host (the same machine, spelled localhost)', () => tunnelDsn.replace('127.0.0.1', 'localhost')],
    ['another port', () => tunnelDsn.replace(/:(\d+)\//, (_m, port: string) => `:${Number(port) + 1}/`)],
    ['another scheme', () => tunnelDsn.replace('http:', 'https:')],
  ])('refuses an envelope for %s with 403 and forwards nothing', async (_name, other) => {
    const dsn = other();
    expect(dsn).not.toBe(tunnelDsn);
    const res = await post(envelope(dsn));
    expect(res.status).toBe(403);
    expect(forwarded).toEqual([]);
    // The control: the live DSN, on the same tunnel, goes through.
    expect((await post(envelope(tunnelDsn))).status).toBe(200);
    expect(forwarded).toHaveLength(1);
  });

  it('refuses the same DSN spelled with its default port made explicit (the match is exact)', async () => {
    const noPort = createTunnel({ dsn: 'http://publickey@127.0.0.1/7', path: PATH, timeoutMs: 300 });
    const answers: number[] = [];
    const server = createServer((req, res) => void noPort.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
    for (const dsn of ['http://publickey@127.0.0.1:80/7', 'http://publickey@127.0.0.1/7']) {
      answers.push((await fetch(at, { method: 'POST', body: envelope(dsn) })).status);
    }
    noPort.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    // The explicit port is refused; the exact spelling passes the check and is forwarded (to port
    // 80 on loopback, where nothing listens here: 502).
    expect(answers[0]).toBe(403);
    expect(answers[1]).not.toBe(403);
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
    let giveUp: NodeJS.Timeout | undefined;
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
      // Only so a broken tunnel cannot hang the test; the tunnel's own timeout is 300 ms here.
      giveUp = setTimeout(() => req.destroy(), 2000);
    });
    clearTimeout(giveUp);
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
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`, {
      method: 'POST',
      body: envelope('http://publickey@127.0.0.1:1/7'),
    });
    // 502, not the 504 a wait for the 5 s timeout would give.
    expect(res.status).toBe(502);
    closed.close();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('carries the security headers and is never cached', async () => {
    const res = await post(envelope(tunnelDsn));
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(res.headers.get('cache-control')).toBe('no-store');
  });
});

describe('the tunnel carries only this app’s own reports', () => {
  const withItems = (dsn: string, ...types: string[]) =>
    `{"event_id":"${'c'.repeat(32)}","dsn":"${dsn}"}\n` +
    types.map((type) => `{"type":"${type}"}\n${PAYLOADS[type] ?? '{"x":1}'}\n`).join('');

  it.each([
    'check_in',
    'feedback',
    'sessions',
    'attachment',
    'client_report',
    'replay_event',
    'profile',
    'log',
  ])('refuses an envelope with a %s item with 400 and forwards nothing', async (type) => {
    const res = await post(withItems(tunnelDsn, type));
    expect(res.status).toBe(400);
    // One fixed sentence: nothing that was sent is echoed back.
    expect(await res.text()).toBe(
      'This tunnel only forwards one event, transaction, session or span item per envelope.',
    );
    expect(forwarded).toEqual([]);
  });

  it.each(['event', 'transaction', 'session'])('forwards one %s item', async (type) => {
    expect((await post(withItems(tunnelDsn, type))).status).toBe(200);
    expect(forwarded).toHaveLength(1);
  });

  it('refuses an error event that smuggles another item along', async () => {
    expect((await post(withItems(tunnelDsn, 'event', 'check_in'))).status).toBe(400);
    expect((await post(withItems(tunnelDsn, 'session', 'session'))).status).toBe(400);
    expect((await post(withItems(tunnelDsn))).status).toBe(400);
    expect(forwarded).toEqual([]);
  });

  it.each([
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ 'sec-fetch-site': 'none' }],
    [{ origin: 'https://evil.example' }],
    [{ origin: 'not a url' }],
  ])('refuses a request from another site (%p) with 403 and forwards nothing', async (headers) => {
    const res = await post(envelope(tunnelDsn), headers);
    expect(res.status).toBe(403);
    expect(forwarded).toEqual([]);
  });

  it('forwards a same-origin request, whatever Origin a proxy left behind', async () => {
    const res = await post(envelope(tunnelDsn), {
      'sec-fetch-site': 'same-origin',
      origin: 'https://public.example',
    });
    expect(res.status).toBe(200);
    expect(forwarded).toHaveLength(1);
  });
});

describe('the tunnel’s defaults', () => {
  // Written out, not read back from the constant: a changed default must change this test.
  it('are the documented bounds', () => {
    expect(TUNNEL_DEFAULTS).toEqual({
      maxBytes: 1_048_576,
      timeoutMs: 5000,
      uploadTimeoutMs: 10_000,
      uploadGraceMs: 2000,
      uploadMinBytesPerSecond: 16_384,
      maxBufferedBytes: 16_777_216,
      discardBytes: 4_194_304,
      upstreamConnections: 8,
    });
  });

  it('refuse an envelope one byte over 1 MiB when no bound is given, and forward one at it', async () => {
    const own = createTunnel({ dsn: tunnelDsn, path: PATH });
    const server = createServer((req, res) => void own.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${PATH}`;
      const base = envelope(tunnelDsn).slice(0, -3); // without the closing `"}` and newline
      const sized = (bytes: number) => `${base}${'x'.repeat(bytes - Buffer.byteLength(base) - 3)}"}\n`;
      expect(Buffer.byteLength(sized(1_048_576))).toBe(1_048_576);
      expect((await fetch(url, { method: 'POST', body: sized(1_048_577) })).status).toBe(413);
      expect((await fetch(url, { method: 'POST', body: sized(1_048_576) })).status).toBe(200);
    } finally {
      own.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the tunnel’s bounds', () => {
  // What each test opened, closed after it whether it passed or not: a failed test must end, not
  // leave servers and uploads that keep Jest from exiting.
  const opened: (() => unknown)[] = [];
  afterEach(async () => {
    for (const close of opened.splice(0).reverse()) await close();
  });

  /** A tunnel of its own, in front of the shared ingest, with the given bounds. */
  async function boundedApp(bounds: {
    maxBufferedBytes?: number;
    upstreamConnections?: number;
    timeoutMs?: number;
    uploadGraceMs?: number;
    uploadMinBytesPerSecond?: number;
  }) {
    const own = createTunnel({
      dsn: tunnelDsn,
      path: PATH,
      maxBytes: 4096,
      uploadTimeoutMs: 5000,
      ...bounds,
    });
    const server = createServer((req, res) => void own.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    let closed: Promise<unknown> | null = null;
    const close = () => {
      closed ??= (async () => {
        own.close();
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      })();
      return closed;
    };
    opened.push(close);
    return { own, port, close };
  }

  /** Starts an upload that declares `declared` bytes, sends `sent` of them and waits. */
  function startSlowUpload(port: number, declared: number, sent: number) {
    const req = request({
      host: '127.0.0.1',
      port,
      path: PATH,
      method: 'POST',
      headers: { 'content-length': String(declared) },
    });
    let status = 0;
    req.on('response', (res) => {
      status = res.statusCode ?? 0;
      res.resume();
    });
    req.on('error', () => {});
    req.write('x'.repeat(sent));
    opened.push(() => req.destroy());
    return { req, status: () => status };
  }

  /** An upload whose body never finishes: only an answer given without reading it can arrive. */
  function answerWithoutBody(port: number, declared: number) {
    return new Promise<{ status: number; retryAfter?: string }>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port,
          path: PATH,
          method: 'POST',
          headers: { 'content-length': String(declared) },
        },
        (res) => {
          res.resume();
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'] as string | undefined,
          });
          req.destroy();
        },
      );
      req.on('error', () => {});
      req.write('x');
    });
  }

  it('answers 503 with Retry-After at once when an upload would not fit beside the bytes held', async () => {
    const app = await boundedApp({ maxBufferedBytes: 2000 });
    const held = [startSlowUpload(app.port, 1000, 900), startSlowUpload(app.port, 1000, 900)];
    await until(() => app.own.bufferedBytes() === 1800);
    expect(await answerWithoutBody(app.port, 300)).toEqual({ status: 503, retryAfter: '5' });
    expect(app.own.bufferedBytes()).toBe(1800);
    for (const { req } of held) req.destroy();
    await until(() => app.own.bufferedBytes() === 0);
    await app.close();
  });

  it('lets real reports through while slow clients hold connections but few bytes', async () => {
    // A budget that two whole reports would fill, and ten uploads that have declared 100 bytes (four
    // times the budget, all told) and sent one each: a count of upload slots, or of declared bytes,
    // would be spent; a budget of bytes held is not.
    const report = envelope(tunnelDsn);
    const app = await boundedApp({ maxBufferedBytes: Buffer.byteLength(report) * 2 + 10 });
    const trickling = Array.from({ length: 10 }, () => startSlowUpload(app.port, 100, 1));
    await until(() => app.own.bufferedBytes() === 10);
    const statuses = [];
    for (let i = 0; i < 5; i += 1) statuses.push(await post(report).then((res) => res.status));
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    for (const { req } of trickling) req.destroy();
    await until(() => app.own.bufferedBytes() === 0);
    await app.close();
  });

  it('refuses an upload that stops fitting halfway with 503, and gives its bytes back', async () => {
    const app = await boundedApp({ maxBufferedBytes: 1000 });
    const first = startSlowUpload(app.port, 900, 600);
    const second = startSlowUpload(app.port, 400, 300);
    await until(() => app.own.bufferedBytes() === 900);
    // 301 more bytes cannot fit beside the 900 held.
    first.req.write('x'.repeat(200));
    await until(() => first.status() !== 0);
    expect(first.status()).toBe(503);
    await until(() => app.own.bufferedBytes() !== 900);
    // The refused upload's 600 went back; the other's 300 stay held.
    expect(app.own.bufferedBytes()).toBe(300);
    expect(second.status()).toBe(0);
    second.req.destroy();
    first.req.destroy();
    await until(() => app.own.bufferedBytes() === 0);
    await app.close();
  });

  it('gives each upload a deadline that follows its declared length', async () => {
    // 100 ms for any upload, plus its length at 1,000 bytes a second: 110 ms for 10 bytes, 4.1 s
    // for 4,000.
    const app = await boundedApp({ uploadGraceMs: 100, uploadMinBytesPerSecond: 1000 });
    const short = startSlowUpload(app.port, 10, 1);
    const long = startSlowUpload(app.port, 4000, 1);
    await until(() => short.status() !== 0);
    expect(short.status()).toBe(408);
    expect(long.status()).toBe(0);
    long.req.destroy();
    await until(() => app.own.bufferedBytes() === 0);
    await app.close();
  });

  it('aborts the upstream request when the browser goes away', async () => {
    const app = await boundedApp({ timeoutMs: 10_000 });
    // The ingest never answers; it notes whether the tunnel dropped the request before an answer.
    let upstreamClosedUnanswered: boolean | null = null;
    ingestAnswer = (res) => res.on('close', () => (upstreamClosedUnanswered = !res.writableEnded));
    const req = request({ host: '127.0.0.1', port: app.port, path: PATH, method: 'POST' });
    req.on('error', () => {});
    req.end(envelope(tunnelDsn));
    await until(() => forwarded.length === 1);
    req.destroy();
    await until(() => upstreamClosedUnanswered !== null);
    expect(upstreamClosedUnanswered).toBe(true);
    // Nothing is logged as an ingest failure: the browser left, the ingest did not fail.
    expect(String(jest.mocked(process.stderr.write).mock.calls)).not.toContain('tunnel_forward_failed');
    await until(() => app.own.bufferedBytes() === 0);
    await app.close();
  });

  it('holds at most its bound of connections to the ingest', async () => {
    const app = await boundedApp({ upstreamConnections: 1, timeoutMs: 10_000 });
    let ingestConnections = 0;
    const counted = () => (ingestConnections += 1);
    ingest.on('connection', counted);
    opened.push(() => ingest.off('connection', counted));
    const waiting: (() => void)[] = [];
    ingestAnswer = (res) => waiting.push(() => res.writeHead(200).end('{}'));
    const posts = [1, 2, 3].map(() =>
      fetch(`http://127.0.0.1:${app.port}${PATH}`, { method: 'POST', body: envelope(tunnelDsn) }),
    );
    // All three read and held by the tunnel (so all three asked to be forwarded), one at the ingest.
    const size = Buffer.byteLength(envelope(tunnelDsn));
    await until(() => app.own.bufferedBytes() === 3 * size && forwarded.length === 1);
    // The others wait for the one connection; answering each lets the next one through.
    for (let answered = 1; answered <= 3; answered += 1) {
      expect(forwarded).toHaveLength(answered);
      expect(app.own.bufferedBytes()).toBe((4 - answered) * size);
      waiting.shift()!();
      if (answered < 3) await until(() => forwarded.length === answered + 1);
    }
    expect((await Promise.all(posts)).map((res) => res.status)).toEqual([200, 200, 200]);
    expect(ingestConnections).toBe(1);
    await app.close();
  });
});

describe('what the tunnel counts', () => {
  let counted: string[];
  beforeEach(() => {
    counted = [];
    recorderSlot.write(recorderWith({ tunnel: (outcome, reason) => counted.push(`${outcome} ${reason}`) }));
  });
  afterEach(() => recorderSlot.clear());

  it('counts each request once, by outcome and a reason of a fixed set', async () => {
    await fetch(`${base}${PATH}`);
    await post('x'.repeat(5000));
    await post(envelope('http://otherkey@127.0.0.1:9/7'));
    await post(envelope(tunnelDsn));
    ingestAnswer = (res) => res.writeHead(429, { 'retry-after': '60' }).end();
    await post(envelope(tunnelDsn));
    ingestAnswer = () => {};
    await post(envelope(tunnelDsn));
    expect(counted).toEqual([
      'refused method',
      'refused too_large',
      'refused foreign_dsn',
      'forwarded 2xx',
      'forwarded 429',
      'upstream_failed timeout',
    ]);
  });

  it('counts a browser that left before the ingest answered, and stops asking the ingest', async () => {
    let ingestGone!: () => void;
    const aborted = new Promise<void>((resolve) => (ingestGone = resolve));
    ingestAnswer = (res) => res.on('close', ingestGone);
    const body = envelope(tunnelDsn);
    await new Promise<void>((resolve) => {
      const req = request(`${base}${PATH}`, {
        method: 'POST',
        headers: { 'Content-Length': Buffer.byteLength(body) },
      });
      req.on('error', () => resolve());
      req.end(body);
      // Gone once the tunnel is asking the ingest.
      void until(() => forwarded.length === 1, 2000).then(() => req.destroy());
    });
    await aborted;
    await until(() => counted.length === 1, 2000);
    expect(counted).toEqual(['abandoned browser_gone']);
  });

  it('counts a browser that left halfway through its upload', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect((app.address() as AddressInfo).port, '127.0.0.1');
      socket.write(`POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"event_id"`);
      setTimeout(() => {
        socket.destroy();
        resolve();
      }, 50);
    });
    await until(() => counted.length === 1, 2000);
    expect(counted).toEqual(['abandoned upload_aborted']);
  });

  it('passes back at most 512 characters of what the ingest said', async () => {
    ingestAnswer = (res) => res.writeHead(400).end('y'.repeat(2000));
    expect(await (await post(envelope(tunnelDsn))).text()).toBe('y'.repeat(512));
  });

  it('logs why a forward failed, in one word', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    ingestAnswer = () => {};
    await post(envelope(tunnelDsn));
    const line = stderr.mock.calls
      .map(([chunk]) => JSON.parse(String(chunk)) as { event: string; reason?: string })
      .find(({ event }) => event === 'reporting.tunnel_forward_failed');
    expect(line?.reason).toBe('timeout');
  });
});

describe('what the tunnel does with a body it will not read', () => {
  // A test on the fake clock that hung (as a planted bug makes it) must not leave the next one on it.
  afterEach(() => jest.useRealTimers());

  /** Writes `requests` on one connection; the answers' status lines, and whether it was closed. */
  function onOneConnection(requests: string): Promise<{ statuses: string[]; closed: boolean }> {
    return new Promise((resolve) => {
      const socket = connect((app.address() as AddressInfo).port, '127.0.0.1');
      let text = '';
      const statuses = () => text.match(/HTTP\/1\.1 \d{3}/g) ?? [];
      socket.on('data', (chunk: Buffer) => {
        text += chunk.toString('latin1');
        if (statuses().length === 2) {
          socket.destroy();
          resolve({ statuses: statuses(), closed: false });
        }
      });
      socket.on('close', () => resolve({ statuses: statuses(), closed: true }));
      socket.write(requests);
    });
  }
  const big = 'x'.repeat(5000);

  it('closes the connection of an upload too slow to wait for, whatever length it declared', async () => {
    const answered = await onOneConnection(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"event_id"`,
    );
    expect(answered).toEqual({ statuses: ['HTTP/1.1 408'], closed: true });
  });

  it('reads a too-large chunked body to its end, then closes the connection', async () => {
    const answered = await onOneConnection(
      `POST ${PATH} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n` +
        `GET ${PATH} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(answered).toEqual({ statuses: ['HTTP/1.1 413'], closed: true });
  });

  /**
   * A tunnel that discards up to `discardBytes` of a refused body. Writes a POST declaring
   * `declared` bytes and all of `body` at once; resolves with what came back once the tunnel ends
   * or breaks the connection.
   */
  async function sendWholeFirst(declared: number, body: Buffer, discardBytes?: number) {
    const own = createTunnel({
      dsn: tunnelDsn,
      path: PATH,
      maxBytes: 4096,
      ...(discardBytes ? { discardBytes } : {}),
    });
    const server = createServer((req, res) => void own.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await new Promise<{ text: string; error?: string }>((resolve) => {
        const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
        let text = '';
        let error: string | undefined;
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
        socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code));
        socket.on('close', () => resolve({ text, ...(error ? { error } : {}) }));
        socket.write(`POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: ${declared}\r\n\r\n`);
        socket.write(body);
      });
    } finally {
      own.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }

  it('gets its 413 to a sender that writes a body declared too large whole before reading', async () => {
    // More than loopback's buffers hold: closing on it unread resets the connection, answer and all.
    const body = Buffer.alloc(8 * 1024 * 1024, 'x');
    const seen = await sendWholeFirst(body.length, body, 16 * 1024 * 1024);
    expect(seen.error).toBeUndefined();
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 [^]*\r\n\r\nEnvelope too large\.$/);
  });

  it('waits for the rest of a refused body no longer than an upload may take: 10 s (docs/tunnel.md)', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const own = createTunnel({ dsn: tunnelDsn, path: PATH });
    const server = createServer((req, res) => void own.handle(req, res));
    try {
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      let closed = false;
      socket.on('error', () => {});
      socket.on('close', () => (closed = true));
      // Declared over the 1 MiB cap and under the 4 MiB discarded: answered 413, the rest awaited.
      socket.write(`POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\npart`);
      const answer = await new Promise<string>((resolve) =>
        socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))),
      );
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      const settle = async () => {
        for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      };
      await jest.advanceTimersByTimeAsync(TUNNEL_DEFAULTS.uploadTimeoutMs - 1);
      await settle();
      expect(closed).toBe(false);
      await jest.advanceTimersByTimeAsync(1);
      await settle();
      expect(closed).toBe(true);
      expect(TUNNEL_DEFAULTS.uploadTimeoutMs).toBe(10_000);
    } finally {
      jest.useRealTimers();
      own.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('does not wait for a rest declared over 4 MiB, the most it discards', async () => {
    // Nothing of the body is sent: only the tunnel hanging up ends this before the test's timeout.
    const seen = await sendWholeFirst(4 * 1024 * 1024 + 1, Buffer.alloc(0));
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 /);
  });
});
