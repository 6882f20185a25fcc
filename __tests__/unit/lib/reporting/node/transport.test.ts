// The server's transport against a real ingest on loopback: its bounds (count, bytes, time), the
// ingest's rate limits, and one connection kept for many envelopes.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createEnvelope, type Envelope, serializeEnvelope, type Transport } from '@sentry/core';
import { makeServerTransport, QUEUED_STATUS, TRANSPORT_LIMITS } from '@lib/reporting/node/transport';
import {
  createReportQueue,
  type QueueLimits,
  type ReportQueue,
  reportQueueSlot,
} from '@lib/reporting/queue/queue';
import { memoryStore } from '@lib/reporting/queue/store';

let ingest: Server;
let answer: (req: IncomingMessage, res: ServerResponse) => void;
let sockets: Set<Socket>;
let requests: number;

beforeAll(async () => {
  ingest = createServer((req, res) => {
    requests += 1;
    sockets.add(req.socket);
    req.resume();
    req.on('end', () => answer(req, res));
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
});

beforeEach(() => {
  sockets = new Set();
  requests = 0;
  answer = (_req, res) => res.writeHead(200).end('{}');
});

afterEach(() => ingest.closeAllConnections());
afterAll(() => ingest.close());

const url = () => `http://127.0.0.1:${(ingest.address() as AddressInfo).port}/api/1/envelope/?sentry_key=k`;

function transportWith(limits: Partial<typeof TRANSPORT_LIMITS> = {}) {
  const dropped: string[] = [];
  const transport: Transport = makeServerTransport({ ...TRANSPORT_LIMITS, ...limits })({
    url: url(),
    recordDroppedEvent: (reason, category) => dropped.push(`${reason} ${category}`),
  });
  return { transport, dropped };
}

const transaction = (padding = 0): Envelope =>
  createEnvelope({ event_id: 'e'.repeat(32) }, [
    [
      { type: 'transaction' },
      { type: 'transaction', transaction: 'GET /', extra: { p: 'x'.repeat(padding) } },
    ],
  ] as unknown as Envelope[1]);

describe("the server's transport", () => {
  it('sends one envelope after another over one kept-alive connection', async () => {
    const { transport, dropped } = transportWith();
    for (let i = 0; i < 5; i += 1)
      expect(await transport.send(transaction())).toMatchObject({ statusCode: 200 });
    expect(requests).toBe(5);
    expect(sockets.size).toBe(1);
    expect(dropped).toEqual([]);
  });

  it('holds at most its count of envelopes while the ingest is slow, and counts the rest as dropped', async () => {
    answer = () => {}; // never answers
    const { transport, dropped } = transportWith({ envelopes: 2, timeoutMs: 300 });
    const sent = Array.from({ length: 5 }, () => transport.send(transaction()));
    await Promise.allSettled(sent);
    expect(dropped.filter((d) => d === 'queue_overflow transaction')).toHaveLength(3);
    // The two held ones then ran out of time: dropped too, as the network's failure.
    expect(dropped.filter((d) => d === 'network_error transaction')).toHaveLength(2);
  });

  it('has the bounds docs/performance.md states: 1,024 envelopes, 8 MiB, 16 connections, 5 s an exchange', () => {
    // Written out, not read back: a changed bound must change this test (the tests below take
    // small bounds, to reach them).
    expect(TRANSPORT_LIMITS).toEqual({ envelopes: 1024, bytes: 8_388_608, connections: 16, timeoutMs: 5000 });
  });

  it('holds at most its bytes, however few envelopes that is', async () => {
    answer = () => {};
    const { transport, dropped } = transportWith({ bytes: 1000, timeoutMs: 300 });
    const sent = [
      transport.send(transaction(800)),
      transport.send(transaction(800)),
      transport.send(transaction(800)),
    ];
    await Promise.allSettled(sent);
    // The first two go (the second crosses the bound), the third does not.
    expect(dropped.filter((d) => d === 'queue_overflow transaction')).toHaveLength(1);
  });

  it('gives the bytes back once an envelope is answered', async () => {
    const { transport, dropped } = transportWith({ bytes: 1000 });
    for (let i = 0; i < 3; i += 1) await transport.send(transaction(800));
    expect(dropped).toEqual([]);
  });

  it('is full at exactly its bytes: an envelope held to the byte keeps the next one out', async () => {
    answer = () => {};
    const size = Buffer.byteLength(serializeEnvelope(transaction(500)) as string);
    const { transport, dropped } = transportWith({ bytes: size, timeoutMs: 300 });
    await Promise.allSettled([transport.send(transaction(500)), transport.send(transaction(0))]);
    expect(dropped.filter((d) => d === 'queue_overflow transaction')).toHaveLength(1);
  });

  it('counts bytes, not characters, of what it holds', async () => {
    answer = () => {};
    // 300 characters of three bytes each: 900 bytes, about 600 more than its characters.
    const wide = createEnvelope({ event_id: 'e'.repeat(32) }, [
      [{ type: 'transaction' }, { type: 'transaction', transaction: 'GET /', extra: { p: '€'.repeat(300) } }],
    ] as unknown as Envelope[1]);
    const chars = (serializeEnvelope(wide) as string).length;
    const { transport, dropped } = transportWith({ bytes: chars + 10, timeoutMs: 300 });
    await Promise.allSettled([transport.send(wide), transport.send(transaction(0))]);
    expect(dropped.filter((d) => d === 'queue_overflow transaction')).toHaveLength(1);
  });

  it('honours a 429 and its Retry-After: what follows is not sent until then', async () => {
    answer = (_req, res) => res.writeHead(429, { 'Retry-After': '60' }).end();
    const { transport, dropped } = transportWith();
    await transport.send(transaction());
    answer = (_req, res) => res.writeHead(200).end('{}');
    await transport.send(transaction());
    expect(requests).toBe(1);
    expect(dropped).toContain('ratelimit_backoff transaction');
  });

  it("honours Sentry's rate-limit header for the categories it names", async () => {
    answer = (_req, res) =>
      res.writeHead(200, { 'X-Sentry-Rate-Limits': '60:transaction:organization' }).end('{}');
    const { transport, dropped } = transportWith();
    await transport.send(transaction());
    await transport.send(transaction());
    expect(requests).toBe(1);
    expect(dropped).toContain('ratelimit_backoff transaction');
  });

  it('gives up on an ingest that does not answer in time, and counts it', async () => {
    answer = () => {};
    const { transport, dropped } = transportWith({ timeoutMs: 200 });
    await expect(transport.send(transaction())).rejects.toThrow();
    expect(dropped).toContain('network_error transaction');
  });
});

describe("the server's transport with the report queue", () => {
  let queue: ReportQueue;
  afterEach(() => {
    queue.stop();
    reportQueueSlot.clear();
  });

  const withQueue = (limits: Partial<QueueLimits> = {}) => {
    const sent: string[] = [];
    queue = createReportQueue({
      store: memoryStore(),
      send: async (body) => {
        sent.push(Buffer.from(body).toString());
        requests += 1;
        return { status: 500, rateLimits: null, retryAfter: null, body: '' };
      },
      limits: { minBackoffMs: 60_000, ...limits },
    });
    reportQueueSlot.write(queue);
    return sent;
  };

  it('sends through the queue, and tells the SDK 202 for an envelope that waits', async () => {
    const sent = withQueue();
    const { transport, dropped } = transportWith();
    expect(await transport.send(transaction())).toMatchObject({ statusCode: QUEUED_STATUS });
    expect(sent).toHaveLength(1);
    expect(queue.stats().envelopes.server).toBe(1);
    expect(dropped).toEqual([]);
  });

  it('counts an envelope the full queue could not keep as a queue overflow', async () => {
    withQueue({ maxEnvelopes: 2 });
    const { transport, dropped } = transportWith();
    await transport.send(transaction());
    expect(await transport.send(transaction())).toEqual({});
    expect(dropped).toEqual(['queue_overflow transaction']);
  });
});
