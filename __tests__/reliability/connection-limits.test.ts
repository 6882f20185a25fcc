// The server's own limits (docs/configuration.md): a headers timeout of seconds, a request
// timeout, a bound on open connections and a timer that enforces them every second. Slow clients
// cannot hold sockets for minutes, readiness keeps answering while they try, and a parse error never
// writes into an answer in flight.
import { connect, type Socket } from 'node:net';
import { PRODUCTION_DIST } from '../support/paths';
import { buildRequest, sendRaw } from '../support/raw-http';
import { recordResult } from '../support/results';
import { type RunningServer, startServer } from '../support/server';
import { rssMiB } from '../support/memory';

const FLOOD = 400;
const TRICKLE_EVERY_MS = 2000;
/** The documented defaults (lib/config/settings.ts). */
const HEADERS_TIMEOUT_MS = 10_000;
const CHECK_INTERVAL_MS = 1000;
/** Kubernetes' default probe timeout: a readiness answer slower than this is a failed probe. */
const PROBE_TIMEOUT_MS = 1000;
const MAX_RSS_GROWTH_MIB = 64;

interface SlowClient {
  socket: Socket;
  openedAt: number;
  closedAt: number | null;
  received: string;
}

/** A client that sends a request line, then one more header line every 2 s, and never finishes. */
function slowClient(port: number): Promise<SlowClient> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const client: SlowClient = { socket, openedAt: 0, closedAt: null, received: '' };
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (chunk: Buffer) => (client.received += chunk.toString('latin1')));
    socket.on('close', () => {
      clearInterval(timer);
      client.closedAt = performance.now();
    });
    socket.on('error', () => {});
    socket.once('connect', () => {
      client.openedAt = performance.now();
      socket.write('GET /api/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      let n = 0;
      timer = setInterval(() => socket.write(`X-Slow-${(n += 1)}: still sending\r\n`), TRICKLE_EVERY_MS);
      resolve(client);
    });
    socket.once('error', reject);
  });
}

describe('a slow-header flood with the default limits', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ distDir: PRODUCTION_DIST });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it(`closes ${FLOOD} trickling connections within the headers timeout while readiness answers`, async () => {
    const rssBefore = rssMiB(server.child.pid);
    const clients = await Promise.all(Array.from({ length: FLOOD }, () => slowClient(server.port)));
    const open = () => clients.filter((c) => c.closedAt === null).length;
    const probes: { status: number; ms: number; openDuring: number }[] = [];
    let rssPeak = rssBefore;
    // Probe readiness as an orchestrator would, until the server has closed every slow client (or
    // long past the point where it should have).
    const giveUpAt = performance.now() + HEADERS_TIMEOUT_MS + 4 * CHECK_INTERVAL_MS + 5000;
    while (open() > 0 && performance.now() < giveUpAt) {
      const openDuring = open();
      const answer = await sendRaw(
        server.port,
        buildRequest({ target: '/api/health/ready' }),
        PROBE_TIMEOUT_MS,
      );
      probes.push({ status: answer.status, ms: answer.ms, openDuring });
      rssPeak = Math.max(rssPeak, rssMiB(server.child.pid));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const stillOpen = open();
    clients.forEach((c) => c.socket.destroy());
    const closedAfter = clients.filter((c) => c.closedAt !== null).map((c) => c.closedAt! - c.openedAt);
    const during = probes.filter((p) => p.openDuring === FLOOD);
    recordResult({
      scenario: `slow-header flood: ${FLOOD} connections, a header line every ${TRICKLE_EVERY_MS / 1000} s`,
      requests: probes.length,
      failures: probes.filter((p) => p.status !== 200).length + stillOpen,
      worstLatencyMs: Math.max(...probes.map((p) => p.ms)),
      note: `all closed by the server after ${(Math.max(...closedAfter) / 1000).toFixed(1)} s (408); ${during.length} ready probes while all ${FLOOD} were open; RSS ${rssBefore.toFixed(0)} → peak ${rssPeak.toFixed(0)} MiB`,
    });
    expect(stillOpen).toBe(0);
    expect(clients.filter((c) => !c.received.startsWith('HTTP/1.1 408 ')).length).toBe(0);
    expect(Math.max(...closedAfter)).toBeLessThan(HEADERS_TIMEOUT_MS + 2 * CHECK_INTERVAL_MS + 1000);
    // Readiness answered, in time for an orchestrator, all through the flood.
    expect(during.length).toBeGreaterThan(5);
    expect(probes.filter((p) => p.status !== 200)).toEqual([]);
    expect(rssPeak - rssBefore).toBeLessThan(MAX_RSS_GROWTH_MIB);
  });
});

describe('MAX_CONNECTIONS=20', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ distDir: PRODUCTION_DIST, env: { MAX_CONNECTIONS: '20' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps twenty connections, closes the ten idle the longest, logs it once, and recovers', async () => {
    // A connection counts once Node accepts it, which can be after the client sees it connected:
    // nothing is sent until the server has closed the ten it lets go. None has sent a request, so
    // all are idle, and each newcomer past the twentieth closes the one idle the longest.
    const sockets: { socket: Socket; text: () => string; closed: boolean }[] = [];
    let closedCount = 0;
    let allRefused: () => void = () => {};
    const refusedTen = new Promise<void>((resolve) => (allRefused = resolve));
    for (let i = 0; i < 30; i += 1) {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      const entry = { socket, text: () => text, closed: false };
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => {
        entry.closed = true;
        closedCount += 1;
        if (closedCount === 10) allRefused();
      });
      sockets.push(entry);
    }
    // Bounded, so a server that refuses nothing fails here instead of at the suite's timeout.
    await Promise.race([refusedTen, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    const kept = sockets.filter((s) => !s.closed);
    const answered = kept.map(
      (s) => new Promise<string>((resolve) => s.socket.once('close', () => resolve(s.text()))),
    );
    for (const { socket } of kept) socket.write(buildRequest({ target: '/api/health/live' }));
    const served = (await Promise.all(answered)).filter((text) => text.startsWith('HTTP/1.1 200 ')).length;
    recordResult({
      scenario: 'MAX_CONNECTIONS=20: 30 connections at once',
      requests: 30,
      failures: 20 - served,
      worstLatencyMs: 0,
      note: `${kept.length} kept and ${served} of them served; ${30 - kept.length} idle ones closed, the oldest first`,
    });
    expect(kept).toHaveLength(20);
    expect(served).toBe(20);
    expect(server.output().match(/"event":"server\.idle_connections_closed"/g)).toHaveLength(1);
    expect((await sendRaw(server.port, buildRequest({ target: '/api/health/ready' }))).status).toBe(200);
  });
});

describe('short timeouts (HEADERS_TIMEOUT_MS=1000, REQUEST_TIMEOUT_MS=1500)', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({
      distDir: PRODUCTION_DIST,
      env: {
        HEADERS_TIMEOUT_MS: '1000',
        REQUEST_TIMEOUT_MS: '1500',
        CONNECTIONS_CHECK_INTERVAL_MS: '100',
        KEEP_ALIVE_TIMEOUT_MS: '5000',
      },
    });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('leaves an idle keep-alive connection alone for longer than the headers timeout', async () => {
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    let text = '';
    const responses = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if ((text.match(/HTTP\/1\.1 200 /g) ?? []).length >= n && text.endsWith('}')) resolve();
        };
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          check();
        });
      });
    const request = 'GET /api/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const first = responses(1);
    socket.write(request);
    await first;
    // Idle for twice the headers timeout: that timer measures a request being sent, not the pause
    // between two requests (the keep-alive timeout's job).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(socket.destroyed).toBe(false);
    const second = responses(2);
    socket.write(request);
    await second;
    socket.destroy();
  });

  it('answers a POST at once, and closes at the request timeout when its body never finishes, with no 408 after the answer', async () => {
    const socket = connect(server.port, '127.0.0.1');
    socket.on('error', () => {});
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const sent = performance.now();
    socket.write('POST /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\nabc');
    await closed;
    const closedAfterMs = performance.now() - sent;
    // Which timer closed it, not how fast anything is: the request timeout (1.5 s, checked every
    // 100 ms), not the keep-alive timeout (5 s) nor the 30 s default of REQUEST_TIMEOUT_MS.
    expect(closedAfterMs).toBeGreaterThanOrEqual(1400);
    expect(closedAfterMs).toBeLessThan(4000);
    expect(text).toMatch(/^HTTP\/1\.1 405 [^]*\}$/);
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
  });

  /** What a connection gets for `GET <path>` followed, in the same packet, by a request that does not parse. */
  const pipelinedWithJunk = (path: string) =>
    new Promise<string>((resolve) => {
      const socket = connect(server.port, '127.0.0.1');
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve(text));
      socket.write(
        `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nBREW / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
      );
    });

  it('writes nothing for a pipelined request that does not parse until the page before it is answered', async () => {
    // Next's own 404 (a path under /_next/ no build has) is still being written when the junk
    // arrives: the connection closes after it, and nothing lands inside it.
    const answer = await pipelinedWithJunk('/_next/missing');
    expect(answer).toMatch(/^HTTP\/1\.1 404 Not Found\r\n/);
    expect(answer).toContain('</html>');
    expect(answer).not.toContain('HTTP/1.1 400');
  });

  it('answers a pipelined request that does not parse after the page before it, whole, never inside it', async () => {
    // "Page not found" from memory (lib/server/not-found.ts) is written whole at once. Whether the
    // junk after it then gets its own 400 or the connection just closes depends on whether Node has
    // finished writing the 404 when the junk fails to parse (Node 20 has, Node 24 may not have):
    // either way the 404 arrives whole, and nothing lands inside it.
    const answer = await pipelinedWithJunk('/missing');
    const end = answer.indexOf('</html>') + '</html>'.length;
    expect(answer.slice(0, end)).toMatch(
      /^HTTP\/1\.1 404 Not Found\r\n[^]*\r\n\r\n<!DOCTYPE html>[^]*<\/html>$/,
    );
    expect(answer.slice(0, end).match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    expect(answer.slice(end)).toMatch(/^(|HTTP\/1\.1 400 Bad Request\r\n[^]*\r\n\r\nBad request\.)$/);
  });
});
