import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { answerThenDiscard, type LingerLimits } from '@lib/http/linger';

let server: Server;
let limits: LingerLimits;
/** How the server's side of the exchange ended: the answer finished, or the connection cut. */
let ended: Promise<'finished' | 'cut'>;

beforeEach(async () => {
  limits = { maxBytes: 4 * 1024 * 1024, maxMs: 60_000 };
  server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

afterEach(async () => {
  // A test on the fake clock that hung (as a planted bug makes it) must not leave the next one on it.
  jest.useRealTimers();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Every request is refused with 413 before its body is read, as the tunnel refuses one too large. */
function refuseEarly() {
  ended = new Promise((resolve) => {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      answerThenDiscard(req, res, { status: 413, message: 'Too large.' }, limits);
      res.once('close', () => resolve(res.writableFinished ? 'finished' : 'cut'));
    });
  });
}

interface Exchange {
  text: string;
  /** The socket error the client saw, if any (a reset shows as ECONNRESET or EPIPE). */
  error?: string;
}

const port = () => (server.address() as AddressInfo).port;

/**
 * Writes `head` and all of `body` at once on a new connection; resolves with what came back once
 * the server ends or breaks the connection.
 */
function exchange(head: string, body: Buffer | string = ''): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = connect(port(), '127.0.0.1');
    let text = '';
    let error: string | undefined;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', (failure: NodeJS.ErrnoException) => (error = failure.code));
    socket.on('close', () => resolve({ text, ...(error ? { error } : {}) }));
    socket.write(head);
    socket.write(body);
  });
}

const post = (length: number | 'chunked') =>
  `POST / HTTP/1.1\r\nHost: x\r\n${length === 'chunked' ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`}\r\n\r\n`;

const chunked = (payload: string) => `${payload.length.toString(16)}\r\n${payload}\r\n`;

/** Timers the process holds: a refused upload must leave none behind once it is over. */
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('answerThenDiscard', () => {
  it('gets its answer to a client that sends its whole body first, and the connection ends cleanly', async () => {
    limits = { maxBytes: 16 * 1024 * 1024, maxMs: 60_000 };
    refuseEarly();
    // More than loopback's buffers hold, so the server must read it before it can close cleanly.
    const body = Buffer.alloc(8 * 1024 * 1024, 'x');
    const seen = await exchange(post(body.length), body);
    // Closing on unread bytes resets the connection: the client's write fails and the answer is lost.
    expect(seen.error).toBeUndefined();
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 [^]*connection: close\r\n/i);
    expect(seen.text.endsWith('\r\n\r\nToo large.')).toBe(true);
    expect(await ended).toBe('finished');
  });

  it('discards a chunked body the same way', async () => {
    limits = { maxBytes: 16 * 1024 * 1024, maxMs: 60_000 };
    refuseEarly();
    const seen = await exchange(post('chunked'), chunked('y'.repeat(64 * 1024)).repeat(128) + '0\r\n\r\n');
    expect(seen.error).toBeUndefined();
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(await ended).toBe('finished');
  });

  it('discards a chunked rest of exactly the most it would discard', async () => {
    limits = { maxBytes: 1000, maxMs: 60_000 };
    refuseEarly();
    const seen = await exchange(
      post('chunked'),
      chunked('v'.repeat(600)) + chunked('v'.repeat(400)) + '0\r\n\r\n',
    );
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(await ended).toBe('finished');
  });

  it('sends the whole answer before the rest has come, so a client can read it while still sending', async () => {
    refuseEarly();
    const socket = connect(port(), '127.0.0.1');
    socket.write(`${post(1000)}only part of it`);
    const text = await new Promise<string>((resolve) => {
      let read = '';
      socket.on('data', (chunk: Buffer) => {
        read += chunk.toString('latin1');
        if (read.endsWith('Too large.')) resolve(read);
      });
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 [^]*content-length: 10\r\n/i);
    socket.destroy();
    expect(await ended).toBe('cut');
  });

  it('does not wait for a rest declared larger than it would discard', async () => {
    limits = { maxBytes: 1000, maxMs: 60_000 };
    refuseEarly();
    // Nothing of the body is ever sent: only a hang-up ends this before the test's timeout.
    const seen = await exchange(post(1001));
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 /);
    await ended;
  });

  it('waits for a rest declared exactly as large as it would discard', async () => {
    limits = { maxBytes: 1000, maxMs: 60_000 };
    refuseEarly();
    const socket = connect(port(), '127.0.0.1');
    socket.write(post(1000));
    const closed = new Promise<string>((resolve) => {
      let read = '';
      socket.on('data', (chunk: Buffer) => (read += chunk.toString('latin1')));
      socket.on('close', () => resolve(read));
    });
    // The answer comes, and the connection stays open for the body…
    await new Promise((resolve) => socket.once('data', resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(socket.readyState).toBe('open');
    // …which, once it has all come, ends it.
    socket.write('z'.repeat(1000));
    expect(await closed).toMatch(/^HTTP\/1\.1 413 /);
    expect(await ended).toBe('finished');
  });

  it('cuts a rest that turns out larger than it would discard', async () => {
    limits = { maxBytes: 100_000, maxMs: 60_000 };
    refuseEarly();
    const socket = connect(port(), '127.0.0.1');
    socket.on('error', () => {});
    socket.write(post('chunked'));
    // An endless chunked body: sent until the server hangs up, which it must do past 100,000 bytes.
    const chunk = chunked('w'.repeat(10_000));
    let sent = 0;
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    const pump = () => {
      while (!socket.destroyed && socket.write(chunk)) sent += 10_000;
      if (!socket.destroyed) socket.once('drain', pump);
    };
    pump();
    await closed;
    expect(sent).toBeGreaterThan(100_000);
    expect(await ended).toBe('cut');
  });

  it('cuts a rest that does not come in time', async () => {
    limits = { maxBytes: 1000, maxMs: 200 };
    refuseEarly();
    const seen = await exchange(post(500), 'only part of it');
    expect(seen.text).toMatch(/^HTTP\/1\.1 413 /);
    expect(await ended).toBe('cut');
  });

  it('waits for the rest exactly as long as its limit, by the clock', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      limits = { maxBytes: 1000, maxMs: 60_000 };
      refuseEarly();
      let outcome: string | undefined;
      void ended.then((how) => (outcome = how));
      const socket = connect(port(), '127.0.0.1');
      socket.on('error', () => {});
      socket.write(`${post(500)}part`);
      await new Promise((resolve) => socket.once('data', resolve));
      // A few turns of the event loop (not faked): what a cut sets in motion has then happened.
      const settle = async () => {
        for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      };
      await jest.advanceTimersByTimeAsync(59_999);
      await settle();
      expect(outcome).toBeUndefined();
      await jest.advanceTimersByTimeAsync(1);
      await settle();
      expect(outcome).toBe('cut');
      socket.destroy();
    } finally {
      jest.useRealTimers();
    }
  });

  it('leaves no timer behind, whether the rest came or the client left', async () => {
    refuseEarly();
    const before = timers();
    await exchange(post(5), 'whole');
    await ended;
    expect(timers()).toBe(before);

    ended = new Promise((resolve) =>
      server.once('request', (_req, res) => res.once('close', () => resolve('cut'))),
    );
    const socket = connect(port(), '127.0.0.1');
    socket.write(`${post(1000)}part`);
    await new Promise((resolve) => socket.once('data', resolve));
    socket.destroy();
    await ended;
    await new Promise((resolve) => setImmediate(resolve));
    expect(timers()).toBe(before);
  });

  it('answers at once when the body has already been read whole', async () => {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.once('end', () => answerThenDiscard(req, res, { status: 400, message: 'No.' }, limits));
    });
    const seen = await exchange(post(3), 'abc');
    expect(seen.error).toBeUndefined();
    expect(seen.text).toMatch(/^HTTP\/1\.1 400 [^]*\r\n\r\nNo\.$/);
  });

  it('ends a response already begun without answering again, and does not throw', async () => {
    const threw = new Promise<unknown>((resolve) =>
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        res.writeHead(200, { 'Content-Length': '100' });
        try {
          answerThenDiscard(req, res, { status: 413, message: 'Too large.' }, limits);
          resolve(null);
        } catch (error) {
          resolve(error);
        }
      }),
    );
    const seen = await exchange(post(5), 'whole');
    expect(await threw).toBeNull();
    // Ended, not answered twice: nothing of the refusal is written after the 200's head.
    expect(seen.text).not.toContain('413');
  });
});
