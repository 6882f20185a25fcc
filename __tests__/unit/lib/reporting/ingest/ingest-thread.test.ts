// The ingest thread's messages, both ends in this thread over a MessageChannel: each envelope
// answered with the ingest's status and rate limits, each failure with why, and what waits when
// the thread ends rejected rather than left hanging.
import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { until } from '../../../../support/until';
import path from 'node:path';
import { senderOver, workerSenders } from '@lib/reporting/ingest/ingest-thread';
import { answerIngestRequests } from '@lib/reporting/ingest/ingest-worker';

let ingest: Server;
let answer: (res: ServerResponse) => void;
let bodies: string[];
const ports: MessagePort[] = [];

beforeAll(async () => {
  ingest = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      answer(res);
    });
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
});

beforeEach(() => {
  bodies = [];
  answer = (res) => res.writeHead(200).end('{}');
});

afterAll(() => {
  for (const port of ports) port.close();
  ingest.closeAllConnections();
  ingest.close();
});

const end = (port: MessagePort) => {
  ports.push(port);
  return {
    postMessage: (value: unknown) => port.postMessage(value),
    onMessage: (listener: (value: unknown) => void) => port.on('message', listener),
  };
};

function channel(url = `http://127.0.0.1:${(ingest.address() as AddressInfo).port}/api/1/envelope/`) {
  const { port1, port2 } = new MessageChannel();
  answerIngestRequests(end(port2), { kind: 'ingest', url, connections: 2, timeoutMs: 300 });
  return senderOver(end(port1));
}

describe('the ingest thread', () => {
  it("sends what it is posted and answers with the ingest's status and rate limits", async () => {
    answer = (res) =>
      res.writeHead(429, { 'Retry-After': '7', 'X-Sentry-Rate-Limits': '7:transaction' }).end();
    const { sender } = channel();
    await expect(sender.send('{"event_id":"x"}\n{"type":"event"}\n{}')).resolves.toEqual({
      body: '',
      status: 429,
      retryAfter: '7',
      rateLimits: '7:transaction',
    });
    expect(bodies).toEqual(['{"event_id":"x"}\n{"type":"event"}\n{}']);
  });

  it('answers many at once, each its own', async () => {
    let n = 0;
    answer = (res) => res.writeHead(200 + (n++ % 2)).end();
    const { sender } = channel();
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => sender.send(`e${i}`)));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 201, 201, 201]);
  });

  it('rejects when the ingest is too slow or cannot be reached', async () => {
    answer = () => {};
    await expect(channel().sender.send('slow')).rejects.toThrow('ingest timeout');
    await expect(channel('http://127.0.0.1:9/api/1/envelope/').sender.send('x')).rejects.toThrow(
      'ingest unreachable',
    );
  });

  it('rejects what waits when the thread is gone, rather than leave it hanging', async () => {
    answer = () => {};
    const { sender, gone } = channel();
    const waiting = sender.send('never answered');
    gone('ingest thread ended');
    await expect(waiting).rejects.toThrow('ingest thread ended');
  });
});

describe('what the thread asks and keeps', () => {
  it('sends each envelope as one, and keeps at most 512 characters of the answer', async () => {
    let contentType: string | undefined;
    const seen = createServer((req, res) => {
      contentType = req.headers['content-type'];
      req.resume();
      req.on('end', () => res.writeHead(200).end('z'.repeat(2000)));
    });
    seen.listen(0, '127.0.0.1');
    await once(seen, 'listening');
    try {
      const sender = channel(`http://127.0.0.1:${(seen.address() as AddressInfo).port}/api/1/envelope/`);
      const answer = await sender.sender.send('{}', { 'user-agent': 'UA' });
      expect(answer.body).toBe('z'.repeat(512));
      expect(contentType).toBe('application/x-sentry-envelope');
    } finally {
      seen.closeAllConnections();
      seen.close();
    }
  });
});

describe('the sender’s messages', () => {
  /** An end whose posts the test reads, and whose replies the test writes. */
  function fakeEnd() {
    const posted: unknown[] = [];
    let reply: (value: unknown) => void = () => {};
    return {
      posted,
      answer: (value: unknown) => reply(value),
      end: {
        postMessage: (value: unknown) => void posted.push(value),
        onMessage: (listener: (value: unknown) => void) => (reply = listener),
      },
    };
  }

  it('posts what is sent in one turn as one message', async () => {
    const { posted, end } = fakeEnd();
    const { sender } = senderOver(end);
    void sender.send('a');
    void sender.send('b', { 'user-agent': 'UA' });
    void sender.send('c');
    await new Promise((resolve) => setImmediate(resolve));
    expect(posted).toEqual([
      [
        { id: 1, body: 'a' },
        { id: 2, body: 'b', headers: { 'user-agent': 'UA' } },
        { id: 3, body: 'c' },
      ],
    ]);
  });

  it('rejects a timeout as a TimeoutError, an unreachable ingest as a plain error, and ignores a stranger’s reply', async () => {
    const { answer, end } = fakeEnd();
    const { sender } = senderOver(end);
    const slow = sender.send('a');
    const away = sender.send('b');
    await new Promise((resolve) => setImmediate(resolve));
    answer([
      { id: 99, failed: 'timeout' },
      { id: 1, failed: 'timeout' },
      { id: 2, failed: 'unreachable' },
    ]);
    await expect(slow).rejects.toMatchObject({ name: 'TimeoutError', message: 'ingest timeout' });
    await expect(away).rejects.toMatchObject({ name: 'Error', message: 'ingest unreachable' });
  });
});

describe('worker senders', () => {
  const FIXTURES = path.join(__dirname, '__fixtures__');
  // A thread that fails as it loads, shared with the transaction thread's tests.
  const FAILS_TO_LOAD = path.join(__dirname, '../node/__fixtures__/fails-to-load.cjs');
  const LIMITS = { connections: 2, timeoutMs: 300 };

  it('start one thread per URL, with the URL and limits, and send through it', async () => {
    const senders = workerSenders(path.join(FIXTURES, 'answers.cjs'));
    const sender = senders('http://ingest.example/api/1/envelope/', LIMITS)!;
    expect(senders('http://ingest.example/api/1/envelope/', LIMITS)).toBe(sender);
    const answer = await sender.send('envelope');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      kind: 'ingest',
      url: 'http://ingest.example/api/1/envelope/',
      ...LIMITS,
    });
    await expect(sender.send('exit')).rejects.toThrow('ingest thread ended');
    // Gone: the next envelope is sent in-thread (no sender) rather than into a thread that ended.
    await until(() => senders('http://ingest.example/api/1/envelope/', LIMITS) === null, 3000);
  });

  it('reject what waits when the thread fails to load', async () => {
    const sender = workerSenders(FAILS_TO_LOAD)('http://ingest.example/', LIMITS)!;
    await expect(sender.send('envelope')).rejects.toThrow(/ingest thread (failed|ended)/);
  });

  it('give none for a thread that cannot be started at all', () => {
    expect(workerSenders('not-a-path-node-accepts.js')('http://ingest.example/', LIMITS)).toBeNull();
  });
});
