// What a stranger's request body can cost, on a product's own API routes (Next's body parser at
// /api/echo, a route streaming its body at /api/upload): a body that cannot be read is answered 400
// and its connection closed at once, as bare `next start` on the same build does (RFC 9112 §6.1);
// a body that comes too slowly is cut at REQUEST_TIMEOUT_MS with 408; connections held by such
// bodies cannot lock the probes and the pages out, nor hold the drain.
import { connect } from 'node:net';
import { buildProduct, PARITY_PRODUCTS, prebuiltProduct, startBareNext } from '../support/product-build';
import { buildRequest, sendRaw } from '../support/raw-http';
import { startServer, type RunningServer } from '../support/server';
import { rmSync } from 'node:fs';

const PRODUCT = PARITY_PRODUCTS.find(({ name }) => name === 'default')!;

/** The bodies Node's parser cannot read, each after a request line and Host. */
const UNREADABLE: [string, string][] = [
  ['Transfer-Encoding xchunked', 'Transfer-Encoding: xchunked\r\n\r\n0\r\n\r\n'],
  ['Transfer-Encoding gzip', 'Transfer-Encoding: gzip\r\n\r\n0\r\n\r\n'],
  ['Transfer-Encoding chunked, gzip', 'Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n'],
  ['a chunk size zz', 'Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n'],
  ['a bad chunk end', 'Transfer-Encoding: chunked\r\n\r\n3\r\nabcXX0\r\n\r\n'],
  [
    'a control character in a chunk extension',
    'Transfer-Encoding: chunked\r\n\r\n3;a=\x01\r\nabc\r\n0\r\n\r\n',
  ],
  ['an overlong chunk size', 'Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\nabc\r\n0\r\n\r\n'],
];
const ROUTES = ['/api/echo', '/api/upload'];

/** A bound that says which timer acted, not how fast anything is. */
const CLOSED_WITHIN_MS = 1000;
const REQUEST_TIMEOUT_MS = 2000;
const CHECK_INTERVAL_MS = 100;
const MAX_CONNECTIONS = 200;
const HELD = 210;

interface Exchange {
  status: string;
  closedAfterMs: number;
  text: string;
}

/**
 * Sends `head` (and `trickle` one byte every `everyMs`), and resolves once the server closes the
 * connection (or after `giveUpMs`, with the time then: a connection the server never closed).
 */
function exchange(
  port: number,
  head: string,
  trickle = '',
  everyMs = 200,
  giveUpMs = 10_000,
): Promise<Exchange> {
  return new Promise((resolve) => {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let at = 0;
    const timer = setInterval(() => at < trickle.length && socket.write(trickle[(at += 1) - 1]!), everyMs);
    const done = () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ status: text.split('\r\n')[0]!, closedAfterMs: performance.now() - started, text });
    };
    const giveUp = setTimeout(() => {
      socket.destroy();
    }, giveUpMs);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', done);
    socket.write(head);
  });
}

let dir = '';

beforeAll(() => {
  dir = prebuiltProduct(PRODUCT.name) ?? buildProduct(PRODUCT);
}, 240_000);

afterAll(() => {
  if (dir && !prebuiltProduct(PRODUCT.name)) rmSync(dir, { recursive: true, force: true });
});

describe('a body that cannot be read, against bare next start on the same build', () => {
  let shell: RunningServer;
  let bare: RunningServer;

  beforeAll(async () => {
    [shell, bare] = await Promise.all([startServer({ distDir: '.next', root: dir }), startBareNext(dir)]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([shell?.stop(), bare?.stop()]);
  });

  const cases = ROUTES.flatMap((route) => UNREADABLE.map(([what, rest]) => [route, what, rest] as const));

  it.each(cases)('%s with %s: 400 and closed at once, as under next start', async (route, _what, rest) => {
    const head = `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\n${rest}`;
    const [ours, next] = await Promise.all([exchange(shell.port, head), exchange(bare.port, head)]);
    expect([ours.status, next.status]).toEqual(['HTTP/1.1 400 Bad Request', 'HTTP/1.1 400 Bad Request']);
    expect(ours.closedAfterMs).toBeLessThan(CLOSED_WITHIN_MS);
    expect(next.closedAfterMs).toBeLessThan(CLOSED_WITHIN_MS);
    // The shell's answer, with the headers of every error answer.
    expect(ours.text).toMatch(/\r\ncache-control: private, no-store\r\n/i);
    expect(ours.text).toMatch(/\r\nx-app-shell-answer: 1\r\n/i);
  });

  it.each(['/about', '/api/health/live', '/missing-page'])(
    'GET %s with a transfer coding that does not end in chunked: 400, as under next start, never an answer',
    async (target) => {
      const head = `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: xchunked\r\n\r\n`;
      const [ours, next] = await Promise.all([exchange(shell.port, head), exchange(bare.port, head)]);
      expect([ours.status, next.status]).toEqual(['HTTP/1.1 400 Bad Request', 'HTTP/1.1 400 Bad Request']);
      expect(ours.text.match(/HTTP\/1\.1 \d{3}/g)).toHaveLength(1);
    },
  );

  it('reports none of them as a server error: the client got a 400', () => {
    expect(shell.output()).not.toMatch(/"event":"server\.error"[^\n]*"status":500/);
  });

  it('still reads a whole body, chunked or not, on both routes', async () => {
    for (const route of ROUTES) {
      const chunked = await sendRaw(
        shell.port,
        `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
      );
      const plain = await sendRaw(
        shell.port,
        buildRequest({
          method: 'POST',
          target: route,
          headers: [['Content-Type', 'application/json']],
          body: '{}',
        }),
      );
      expect([route, chunked.status, plain.status]).toEqual([route, 200, 200]);
    }
  });
});

describe(`bodies that come too slowly (REQUEST_TIMEOUT_MS=${REQUEST_TIMEOUT_MS}, MAX_CONNECTIONS=${MAX_CONNECTIONS})`, () => {
  let shell: RunningServer;

  beforeAll(async () => {
    shell = await startServer({
      distDir: '.next',
      root: dir,
      env: {
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
        HEADERS_TIMEOUT_MS: '1000',
        CONNECTIONS_CHECK_INTERVAL_MS: String(CHECK_INTERVAL_MS),
        MAX_CONNECTIONS: String(MAX_CONNECTIONS),
        SHUTDOWN_DRAIN_MS: '0',
        SHUTDOWN_TIMEOUT_MS: '20000',
      },
    });
  }, 60_000);

  afterAll(async () => {
    await shell?.stop();
  });

  const slowPost = (route: string) =>
    `POST ${route} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;

  it.each(ROUTES)('cuts a body trickled to %s at the request timeout with 408', async (route) => {
    const answer = await exchange(shell.port, slowPost(route), '{'.repeat(100), 200);
    expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 100);
    expect(answer.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
  });

  it('cuts a streamed body that stops half way at the request timeout with 408', async () => {
    const answer = await exchange(
      shell.port,
      'POST /api/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n',
    );
    expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
    expect(answer.closedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 1000);
  });

  it(`answers the probe and a page with ${HELD} trickling bodies held and ${HELD} unreadable ones sent`, async () => {
    // Held: each sends a byte of its body every 500 ms, and would for 50 s. In waves up to the
    // limit, then one at a time, so that each has sent its head (busy, not idle) before the next
    // arrives: a connection that has sent nothing yet is idle, and goes first (its own test).
    const held: Promise<Exchange>[] = [];
    const hold = () => held.push(exchange(shell.port, slowPost('/api/echo'), '{'.repeat(100), 500, 30_000));
    for (let at = 0; at < HELD; at += 1) {
      hold();
      if (at >= MAX_CONNECTIONS - 1 || at % 50 === 49)
        await new Promise((resolve) => setTimeout(resolve, at === MAX_CONNECTIONS - 1 ? 300 : 50));
    }
    const probe = await sendRaw(shell.port, buildRequest({ target: '/api/health/live' }), 1000);
    const page = await sendRaw(shell.port, buildRequest({ target: '/about' }), 3000);
    // One after the other, each at the limit: each gets in, is answered and goes.
    const answers: Exchange[] = [];
    for (let at = 0; at < HELD; at += 1)
      answers.push(
        await exchange(
          shell.port,
          `POST /api/echo HTTP/1.1\r\nHost: 127.0.0.1\r\n${UNREADABLE[at % UNREADABLE.length]![1]}`,
        ),
      );
    const cut = await Promise.all(held);
    console.log(
      `[bodies] ${HELD} trickling bodies held and ${HELD} unreadable ones sent at MAX_CONNECTIONS=${MAX_CONNECTIONS}: probe ${probe.status} in ${Math.round(probe.ms)} ms, page ${page.status} in ${Math.round(page.ms)} ms; unreadable ${answers.filter((a) => a.status === 'HTTP/1.1 400 Bad Request').length} answered 400, the slowest closed after ${Math.round(Math.max(...answers.map((a) => a.closedAfterMs)))} ms; trickling all closed by ${(Math.max(...cut.map((c) => c.closedAfterMs)) / 1000).toFixed(1)} s, ${cut.filter((c) => c.status === 'HTTP/1.1 408 Request Timeout').length} with 408`,
    );
    expect([probe.status, page.status]).toEqual([200, 200]);
    expect(answers.filter((a) => a.status !== 'HTTP/1.1 400 Bad Request').map((a) => a.status)).toEqual([]);
    expect(Math.max(...answers.map((a) => a.closedAfterMs))).toBeLessThan(CLOSED_WITHIN_MS);
    // Every trickling body is cut by the server: with its 408, at the limit or at its request
    // timeout; or, where a newcomer came before the server had read its head (it was idle then,
    // and an idle connection goes first), closed unanswered. Never anything else, and never left open.
    const timedOut = cut.filter((c) => c.status === 'HTTP/1.1 408 Request Timeout').length;
    expect(cut.filter((c) => c.status !== 'HTTP/1.1 408 Request Timeout' && c.status !== '')).toEqual([]);
    expect(timedOut).toBeGreaterThanOrEqual(MAX_CONNECTIONS / 2);
    // Closed by the server's timers (2 s, checked every 100 ms), not the client's give-up at 30 s.
    expect(Math.max(...cut.map((c) => c.closedAfterMs))).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
  }, 60_000);

  it('stops within the request timeout of SIGTERM though a body is still trickling in', async () => {
    const trickling = exchange(shell.port, slowPost('/api/echo'), '{'.repeat(100), 200, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopping = performance.now();
    const code = await shell.stop();
    const stoppedAfterMs = performance.now() - stopping;
    const answer = await trickling;
    expect(code).toBe(0);
    expect(answer.status).toBe('HTTP/1.1 408 Request Timeout');
    // Not the shutdown timeout (20 s): the request's own, counted from the stop. A body that could
    // still come whole in time is not cut sooner.
    expect(stoppedAfterMs).toBeLessThan(REQUEST_TIMEOUT_MS + 2000);
    expect(stoppedAfterMs).toBeGreaterThanOrEqual(REQUEST_TIMEOUT_MS - 300);
  }, 30_000);
});
