// One fetch from a peer, on its own: the peer is a socket on loopback that answers byte for byte what
// the test writes, so it can declare one length and send another.
import http, { type Server } from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Peer } from '@lib/fleet/directory';
import { type FetchOutcome, fetchFromPeer } from '@lib/fleet/forward';
import { HOP_HEADER } from '@lib/fleet/paths';
import { until } from '../../../support/until';

const closers: (() => void)[] = [];

afterEach(() => {
  for (const close of closers.splice(0)) close();
});

/** The peer listening at `server`, as the directory would know it, asked through `agent`. */
function peerAt(server: net.Server, agent: http.Agent): Peer {
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    identity: { build: 'buildOld', instance: 'a' },
    unanswered: 0,
    failedUntil: 0,
    inFlight: 0,
    agent,
  };
}

/** A peer that answers every request with `answer` (head and body, as raw text); records what it was asked. */
async function rawPeer(answer: string, { hold = false } = {}) {
  const asked: string[] = [];
  const closed: Promise<void>[] = [];
  const server = net.createServer((socket) => {
    closed.push(new Promise((resolve) => socket.on('close', () => resolve())));
    socket.once('data', (request) => {
      asked.push(request.toString('latin1'));
      // Held: the answer so far, then nothing, as a peer that stalls.
      if (hold) socket.write(answer);
      else socket.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => server.close());
  const agent = new http.Agent();
  closers.push(() => agent.destroy());
  return { peer: peerAt(server, agent), asked, closed };
}

/** The instance: passes every request to `peer`, and keeps each fetch's outcome. */
async function front(
  peer: Peer,
  kind: 'static' | 'data',
  maxBytes = 1000,
  { timeoutMs = 2000, noAddress = false } = {},
) {
  const outcomes: FetchOutcome[] = [];
  const reasons: string[] = [];
  const server: Server = http.createServer(async (req, res) => {
    const outcome = await fetchFromPeer({
      peer,
      target: req.url ?? '/',
      kind,
      // A request whose socket has no address any more (it closed as the request was read).
      req: noAddress
        ? ({ method: req.method, headers: req.headers, socket: {} } as http.IncomingMessage)
        : req,
      res,
      timeoutMs,
      maxBytes,
      onFailed: (why) => reasons.push(why),
    });
    outcomes.push(outcome);
    if (outcome === 'missing' || outcome === 'failed') res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, outcomes, reasons };
}

/** What the visitor got: status, headers, body, and whether the answer ended whole. */
function visit(
  base: string,
  { method = 'GET', headers = {} }: { method?: string; headers?: Record<string, string> } = {},
) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; whole: boolean }>(
    (resolve) => {
      const req = http.request(`${base}/x`, { method, headers, agent: false }, (res) => {
        let body = '';
        res.setEncoding('latin1');
        res.on('data', (chunk: string) => (body += chunk));
        const done = () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, whole: res.complete });
        res.on('end', done);
        res.on('close', done);
      });
      req.on('error', () => resolve({ status: 0, headers: {}, body: '', whole: false }));
      req.end();
    },
  );
}

const head = (status: string, headers: Record<string, string | number>) =>
  `HTTP/1.1 ${status}\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}Connection: close\r\n\r\n`;

describe('a file whose length is declared', () => {
  it('sent whole: passed on whole, with its length', async () => {
    const { peer } = await rawPeer(head('200 OK', { 'Content-Length': 10 }) + '0123456789');
    const { base, outcomes } = await front(peer, 'static');
    expect(await visit(base)).toMatchObject({ status: 200, body: '0123456789', whole: true });
    expect(await visit(base)).toMatchObject({ headers: expect.objectContaining({ 'content-length': '10' }) });
    expect(outcomes).toEqual(['found', 'found']);
    expect(peer.inFlight).toBe(0);
  });

  it('of exactly the largest size taken: passed on', async () => {
    const { peer } = await rawPeer(head('200 OK', { 'Content-Length': 10 }) + '0123456789');
    const { base, outcomes } = await front(peer, 'static', 10);
    expect(await visit(base)).toMatchObject({ status: 200, whole: true });
    expect(outcomes).toEqual(['found']);
  });

  it('sent short: the visitor’s answer is cut, never complete, as soon as the peer closes', async () => {
    const { peer } = await rawPeer(head('200 OK', { 'Content-Length': 10 }) + '01234');
    // The fetch's own timeout is far away: only the peer's closing can end it in time.
    const { base, outcomes } = await front(peer, 'static', 1000, { timeoutMs: 60_000 });
    expect(await visit(base)).toMatchObject({ whole: false });
    expect(outcomes).toEqual(['cut']);
    expect(peer.inFlight).toBe(0);
  });

  it('to HEAD: no body, and none expected', async () => {
    const { peer, asked } = await rawPeer(head('200 OK', { 'Content-Length': 10 }));
    const { base, outcomes } = await front(peer, 'static');
    expect(await visit(base, { method: 'HEAD' })).toMatchObject({ status: 200, body: '', whole: true });
    expect(asked[0]).toMatch(/^HEAD \/x /);
    expect(outcomes).toEqual(['found']);
  });

  it('as a 304 to a revalidation: no body, and none expected', async () => {
    const { peer, asked } = await rawPeer(head('304 Not Modified', { 'Content-Length': 10, ETag: '"a"' }));
    const { base, outcomes } = await front(peer, 'static');
    expect(await visit(base, { headers: { 'If-None-Match': '"a"' } })).toMatchObject({
      status: 304,
      whole: true,
    });
    expect(asked[0]).toMatch(/\r\nif-none-match: "a"\r\n/i);
    expect(outcomes).toEqual(['found']);
  });
});

describe('what a static file’s peer may answer', () => {
  it.each([
    ['201 Created', 'failed'],
    ['500 Internal Server Error', 'failed'],
    ['404 Not Found', 'missing'],
  ] as const)('%s: %s, nothing passed on', async (status, outcome) => {
    const { peer } = await rawPeer(head(status, { 'Content-Length': 2 }) + 'no');
    const { base, outcomes } = await front(peer, 'static');
    expect((await visit(base)).status).toBe(503);
    expect(outcomes).toEqual([outcome]);
  });
});

describe('a page’s data', () => {
  it('is asked with the visitor’s headers and address, and answered with the page’s own', async () => {
    const { peer, asked } = await rawPeer(
      head('404 Not Found', {
        'Content-Length': 2,
        'Content-Type': 'application/json',
        'Set-Cookie': 'a=1',
      }) + '{}',
    );
    const { base, outcomes } = await front(peer, 'data');
    const seen = await visit(base, { headers: { Cookie: 'session=1', 'X-Forwarded-For': '203.0.113.9' } });
    expect(seen).toMatchObject({ status: 404, body: '{}', whole: true });
    expect(seen.headers).toMatchObject({ 'content-length': '2', 'set-cookie': ['a=1'] });
    expect(asked[0]).toMatch(/\r\ncookie: session=1\r\n/i);
    expect(asked[0]).toMatch(/\r\nx-forwarded-for: 203\.0\.113\.9, 127\.0\.0\.1\r\n/i);
    expect(outcomes).toEqual(['found']);
  });

  it('is asked with the visitor’s address alone when no proxy named one', async () => {
    const { peer, asked } = await rawPeer(head('200 OK', { 'Content-Length': 2 }) + '{}');
    const { base } = await front(peer, 'data');
    await visit(base);
    expect(asked[0]).toMatch(/\r\nx-forwarded-for: 127\.0\.0\.1\r\n/i);
  });

  it('is not passed on when the page failed (5xx)', async () => {
    const { peer } = await rawPeer(head('500 Internal Server Error', { 'Content-Length': 2 }) + '{}');
    const { base, outcomes } = await front(peer, 'data');
    expect((await visit(base)).status).toBe(503);
    expect(outcomes).toEqual(['failed']);
  });

  it('is passed on up to 499', async () => {
    const { peer } = await rawPeer(head('499 Client Closed', { 'Content-Length': 2 }) + '{}');
    const { base, outcomes } = await front(peer, 'data');
    expect((await visit(base)).status).toBe(499);
    expect(outcomes).toEqual(['found']);
  });
});

describe('a visitor who goes away', () => {
  /** Asks, then hangs up once `after` bytes of the body have come (0: before the answer's head). */
  function hangUp(base: string, after: number) {
    return new Promise<void>((resolve) => {
      const req = http.get(`${base}/x`, { agent: false }, (res) => {
        let got = 0;
        res.on('data', (chunk: Buffer) => {
          got += chunk.length;
          if (got >= after) req.destroy();
        });
        res.on('close', () => resolve());
      });
      req.on('error', () => resolve());
      if (after === 0) setTimeout(() => req.destroy(), 100);
    });
  }

  it('mid-file: the fetch is cut and the peer’s connection closed', async () => {
    const { peer, closed } = await rawPeer(head('200 OK', { 'Content-Length': 100_000 }) + 'x'.repeat(1000), {
      hold: true,
    });
    // The fetch's own timeout is far away: only the visitor's leaving can end it in time.
    const { base, outcomes } = await front(peer, 'static', 200_000, { timeoutMs: 60_000 });
    await hangUp(base, 1000);
    await closed[0];
    await until(() => outcomes.length > 0);
    expect(outcomes).toEqual(['cut']);
    expect(peer.inFlight).toBe(0);
  });

  it('before the peer answered: the fetch stops, the peer’s connection is closed, and the peer is not blamed', async () => {
    const { peer, closed } = await rawPeer('', { hold: true });
    const { base, outcomes } = await front(peer, 'static', 1000, { timeoutMs: 60_000 });
    await hangUp(base, 0);
    await closed[0];
    await until(() => outcomes.length > 0);
    // Not 'failed', which leaves the peer out for a while: a dropped prefetch would then cost every
    // visitor's requests for that build 503s.
    expect(outcomes).toEqual(['gone']);
    expect(peer.inFlight).toBe(0);
  });
});

describe('what is asked of the peer', () => {
  it('for a static file: compression and the cache’s validators, never the visitor’s cookies', async () => {
    const { peer, asked } = await rawPeer(head('200 OK', { 'Content-Length': 2 }) + 'ok');
    const { base } = await front(peer, 'static');
    await visit(base, {
      headers: { 'Accept-Encoding': 'gzip', Cookie: 'session=1', 'If-Modified-Since': 'x' },
    });
    expect(asked[0]).toMatch(/\r\naccept-encoding: gzip\r\n/i);
    expect(asked[0]).toMatch(/\r\nif-modified-since: x\r\n/i);
    expect(asked[0]).not.toMatch(/cookie/i);
    expect(asked[0]).not.toMatch(/x-forwarded-for/i);
  });

  it('for data: marked as one hop whatever the visitor sent in that header', async () => {
    const { peer, asked } = await rawPeer(head('200 OK', { 'Content-Length': 2 }) + '{}');
    const { base } = await front(peer, 'data');
    await visit(base, { headers: { [HOP_HEADER]: 'instanceForged' } });
    expect(asked[0]).toMatch(new RegExp(`\\r\\n${HOP_HEADER}: 1\\r\\n`, 'i'));
    expect(asked[0]).not.toMatch(/instanceForged/);
  });

  it('for data from a visitor whose address is gone: no made-up address', async () => {
    const { peer, asked } = await rawPeer(head('200 OK', { 'Content-Length': 2 }) + '{}');
    const { base } = await front(peer, 'data', 1000, { noAddress: true });
    await visit(base);
    expect(asked[0]).not.toMatch(/x-forwarded-for/i);
  });
});

describe('a peer’s connection', () => {
  /** A peer that is a real HTTP server (keep-alive, back-pressure), asked through `agent`. */
  async function httpPeer(handler: http.RequestListener, agent = new http.Agent()) {
    const server = http.createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      agent.destroy();
      server.closeAllConnections();
      server.close();
    });
    return { peer: peerAt(server, agent), server };
  }

  it('is kept for the next file once a file was passed on whole', async () => {
    let connections = 0;
    const { peer, server } = await httpPeer(
      (_, res) => res.writeHead(200, { 'Content-Length': 2 }).end('ok'),
      new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    server.on('connection', () => (connections += 1));
    const { base, outcomes } = await front(peer, 'static');
    for (let i = 0; i < 3; i += 1) {
      expect(await visit(base)).toMatchObject({ status: 200, body: 'ok', whole: true });
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(outcomes).toEqual(['found', 'found', 'found']);
    expect(connections).toBe(1);
  });

  it('is read at the visitor’s pace: a visitor who reads nothing holds the peer back', async () => {
    const total = 64 * 1024 * 1024;
    let peerDone = false;
    const { peer } = await httpPeer((_, res) => {
      res.writeHead(200, { 'Content-Length': total });
      const chunk = Buffer.alloc(1024 * 1024, 'x');
      let left = total;
      const pump = () => {
        while (left > 0 && !res.destroyed) {
          left -= chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end(() => (peerDone = true));
      };
      pump();
    });
    const { base } = await front(peer, 'static', total, { timeoutMs: 10_000 });
    const visitor = http.get(`${base}/x`, { agent: false }, (res) => res.pause());
    visitor.on('error', () => {});
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(peerDone).toBe(false);
    visitor.destroy();
  });
});

describe('why a fetch failed, for the operator’s line', () => {
  it.each([
    [
      'a status not passed on',
      head('500 Internal Server Error', { 'Content-Length': 2 }) + 'no',
      'status 500',
    ],
    ['a declared length past the bound', head('200 OK', { 'Content-Length': 1001 }), 'too large'],
    [
      'a status not passed on, at the largest length',
      head('502 Bad Gateway', { 'Content-Length': 1000 }),
      'status 502',
    ],
    [
      'a body past the bound with no declared length',
      'HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n' + 'x'.repeat(1001),
      'too large',
    ],
  ])('%s: %s', async (_, answer, why) => {
    const { peer } = await rawPeer(answer);
    const { base, outcomes, reasons } = await front(peer, 'static');
    await visit(base);
    expect(outcomes).toEqual([expect.stringMatching(/^(failed|cut)$/)]);
    // A body cut at the bound after its head was passed on is cut, not failed: no reason then.
    expect(reasons).toEqual(outcomes[0] === 'failed' ? [why] : []);
  });

  it('a peer that does not answer in time: timeout', async () => {
    const { peer } = await rawPeer('', { hold: true });
    const { base, outcomes, reasons } = await front(peer, 'static', 1000, { timeoutMs: 200 });
    await visit(base);
    expect(outcomes).toEqual(['failed']);
    expect(reasons).toEqual(['timeout']);
  });

  it('a peer that is not listening: the error’s code', async () => {
    const { peer } = await rawPeer('');
    const gone = new http.Agent();
    closers.push(() => gone.destroy());
    const stopped = { ...peer, base: 'http://127.0.0.1:1', agent: gone };
    const { base, outcomes, reasons } = await front(stopped, 'static');
    await visit(base);
    expect(outcomes).toEqual(['failed']);
    expect(reasons).toEqual(['ECONNREFUSED']);
  });

  it('nothing when the file was found or missing', async () => {
    const found = await rawPeer(head('200 OK', { 'Content-Length': 2 }) + 'ok');
    const missing = await rawPeer(head('404 Not Found', { 'Content-Length': 2 }) + 'no');
    for (const { peer } of [found, missing]) {
      const { base, reasons } = await front(peer, 'static');
      await visit(base);
      expect(reasons).toEqual([]);
    }
  });
});

describe('a kept-alive connection the peer closed as the request went out on it', () => {
  /**
   * A peer keeping connections alive: `reset(connection, request)` says whether it resets the
   * connection (RST, no answer) on the request-th request (from 0) of the connection-th one.
   */
  async function resettingPeer(reset: (connection: number, request: number) => boolean) {
    let connections = 0;
    const server = net.createServer((socket) => {
      const connection = connections++;
      let requests = 0;
      socket.on('error', () => {});
      socket.on('data', () => {
        if (reset(connection, requests++)) socket.resetAndDestroy();
        else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nKeep-Alive: timeout=60\r\n\r\nok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => server.close());
    const agent = new http.Agent({ keepAlive: true });
    closers.push(() => agent.destroy());
    return { peer: peerAt(server, agent), connections: () => connections };
  }

  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

  it('is asked once more, on another connection, and the file is passed on', async () => {
    // Each connection answers its first request and resets at its second, as at its idle timeout.
    const { peer, connections } = await resettingPeer((_, request) => request > 0);
    const { base, outcomes, reasons } = await front(peer, 'static');
    expect(await visit(base)).toMatchObject({ status: 200, body: 'ok', whole: true });
    await pause();
    expect(await visit(base)).toMatchObject({ status: 200, body: 'ok', whole: true });
    expect(outcomes).toEqual(['found', 'found']);
    expect(reasons).toEqual([]);
    expect(connections()).toBe(2);
    expect(peer.inFlight).toBe(0);
  });

  it('once only: a second reset is the peer’s failure', async () => {
    // Two kept connections, both resetting their next request; a third would answer.
    const { peer, connections } = await resettingPeer((connection, request) => connection < 2 && request > 0);
    const { base, outcomes, reasons } = await front(peer, 'static');
    await Promise.all([visit(base), visit(base)]);
    await pause();
    expect(connections()).toBe(2);
    expect((await visit(base)).status).toBe(503);
    expect(outcomes).toEqual(['found', 'found', 'failed']);
    expect(reasons).toEqual(['ECONNRESET']);
  });

  it('not when the connection was new: a reset there reached the peer', async () => {
    const { peer, connections } = await resettingPeer(() => true);
    const { base, outcomes, reasons } = await front(peer, 'static');
    expect((await visit(base)).status).toBe(503);
    expect(outcomes).toEqual(['failed']);
    expect(reasons).toEqual(['ECONNRESET']);
    expect(connections()).toBe(1);
  });
});
