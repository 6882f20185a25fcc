// The way envelopes reach the ingest, against an ingest on loopback: what it sends, what it keeps of
// the answer, and what it does with its connections.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createForwarder, createIngestForwarder, failureReason } from '@lib/reporting/ingest/forward';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

async function ingest(answer: (res: http.ServerResponse) => void) {
  const closed: Promise<void>[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(res));
  });
  server.on('connection', (socket) =>
    closed.push(new Promise((resolve) => socket.on('close', () => resolve()))),
  );
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/1/envelope/`),
    closed,
  };
}

describe('what it keeps of the ingest’s answer', () => {
  it('the first 16 KiB of its body, whatever it sends after', async () => {
    const { url } = await ingest((res) => {
      res.writeHead(200);
      // In pieces, so the bound is met between two of them.
      for (let i = 0; i < 40; i += 1) res.write('x'.repeat(1024));
      res.end();
    });
    const forwarder = createIngestForwarder(url, 1);
    try {
      const answer = await forwarder.send('{}', {}, { timeoutMs: 5000 });
      expect(answer.body.length).toBeGreaterThan(0);
      expect(answer.body.length).toBeLessThanOrEqual(16 * 1024);
    } finally {
      forwarder.close();
    }
  });

  it('a body of exactly 16 KiB, whole', async () => {
    const { url } = await ingest((res) => {
      res.writeHead(200);
      for (let i = 0; i < 16; i += 1) res.write('y'.repeat(1024));
      res.end();
    });
    const forwarder = createIngestForwarder(url, 1);
    try {
      expect((await forwarder.send('{}', {}, { timeoutMs: 5000 })).body).toBe('y'.repeat(16 * 1024));
    } finally {
      forwarder.close();
    }
  });
});

describe('what it sends', () => {
  it('a POST of the envelope with its length', async () => {
    const seen: string[] = [];
    const server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        seen.push(`${req.method} ${req.headers['content-length']} ${body}`);
        res.end('{}');
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const forwarder = createIngestForwarder(
      new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/1/envelope/`),
      1,
    );
    try {
      await forwarder.send('{"é":1}', {}, { timeoutMs: 5000 });
      expect(seen).toEqual(['POST 8 {"é":1}']);
    } finally {
      forwarder.close();
    }
  });
});

describe('its connections', () => {
  it('are kept alive between sends, and closed by close()', async () => {
    const { url, closed } = await ingest((res) => res.end('{}'));
    const forwarder = createIngestForwarder(url, 1);
    await forwarder.send('{}', {}, { timeoutMs: 5000 });
    await forwarder.send('{}', {}, { timeoutMs: 5000 });
    expect(closed).toHaveLength(1);
    forwarder.close();
    await closed[0];
  });

  it('go over TLS to an https ingest', async () => {
    // Nothing listens on port 1: a TLS client fails to connect; a plain one would refuse the URL.
    const forwarder = createIngestForwarder(new URL('https://127.0.0.1:1/api/1/envelope/'), 1);
    try {
      await expect(forwarder.send('{}', {}, { timeoutMs: 5000 })).rejects.toMatchObject({
        code: 'ECONNREFUSED',
      });
    } finally {
      forwarder.close();
    }
  });
});

describe('its failures', () => {
  it('an ingest that breaks off its answer: a failure at once, not a wait for the timeout', async () => {
    const { url } = await ingest((res) => {
      res.writeHead(200, { 'Content-Length': 100 });
      res.write('{"id"');
      setTimeout(() => res.destroy(), 20);
    });
    const forwarder = createIngestForwarder(url, 1);
    try {
      const failure = await forwarder.send('{}', {}, { timeoutMs: 60_000 }).catch((error: unknown) => error);
      expect(failureReason(failure)).toBe('unreachable');
    } finally {
      forwarder.close();
    }
  });

  it.each([
    [{ name: 'TimeoutError' }, 'timeout'],
    [{ name: 'AbortError' }, 'timeout'],
    [new Error('connect ECONNREFUSED'), 'unreachable'],
    ['TimeoutError', 'unreachable'],
    [null, 'unreachable'],
  ])('names %p %s', (error, reason) => {
    expect(failureReason(error)).toBe(reason);
  });

  it('a DSN it cannot read, at once', () => {
    // (Sentry's parser says so on the console too.)
    const console_ = jest.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => createForwarder('not a dsn', 1)).toThrow('The tunnel needs a valid DSN');
    console_.mockRestore();
  });

  it('a send that ran out of time is a timeout', async () => {
    const { url } = await ingest(() => {});
    const forwarder = createIngestForwarder(url, 1);
    try {
      const failure = await forwarder.send('{}', {}, { timeoutMs: 50 }).catch((error: unknown) => error);
      expect(failure).toMatchObject({ name: 'TimeoutError', message: 'The ingest did not answer in time' });
      expect(failureReason(failure)).toBe('timeout');
    } finally {
      forwarder.close();
    }
  });
});
