// Transactions prepared on a thread of their own (lib/reporting/node/transaction-thread.ts and
// transaction-worker.ts), both sides in this process over a MessageChannel: what the ingest gets,
// what is counted, flushing, and the request's thread taking over when the thread is gone.
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import {
  parseEnvelope,
  setCurrentClient,
  startInactiveSpan,
  startNewTrace,
  type Span,
  type TransportMakeRequestResponse,
} from '@sentry/core';
import type { MessageEnd } from '@lib/reporting/ingest/ingest-messages';
import type { Counts } from '@lib/reporting/node/counts';
import { createServerClient } from '@lib/reporting/node/server-client';
import {
  startTransactionThread,
  type TransactionThread,
  transactionsOver,
} from '@lib/reporting/node/transaction-thread';
import { prepareTransactions } from '@lib/reporting/node/transaction-worker';
import { makeServerTransport } from '@lib/reporting/node/transport';
import { until } from '../../../../support/until';

const config = {
  dsn: 'http://publickey@127.0.0.1:9/1',
  release: 'r1',
  environment: 'test',
  tracesSampleRate: 1,
};

const endOf = (port: MessagePort): MessageEnd => ({
  postMessage: (value) => port.postMessage(value),
  onMessage: (listener) => port.on('message', listener),
});

interface Setup {
  /** Envelopes the thread handed back to be delivered. */
  delivered: string[];
  /** Envelopes the request's thread prepared and delivered itself. */
  inThread: string[];
  counted: string[];
  thread: TransactionThread;
  gone: () => void;
  answer: (body: string) => Promise<TransportMakeRequestResponse>;
}

let ports: MessagePort[] = [];
let s: Setup;

beforeEach(() => {
  const channel = new MessageChannel();
  ports = [channel.port1, channel.port2];
  const counted: string[] = [];
  const counts: Counts = {
    report: (outcome, reason) => counted.push(`report ${outcome} ${reason}`),
    transaction: (outcome, reason) => counted.push(`transaction ${outcome} ${reason}`),
  };
  const delivered: string[] = [];
  const inThread: string[] = [];
  const over = transactionsOver(
    endOf(channel.port1),
    (body) => {
      delivered.push(String(body));
      return s.answer(String(body));
    },
    counts,
    // Room for two at once: the thread says what it took, which makes room again.
    2,
  );
  prepareTransactions(endOf(channel.port2), { kind: 'transactions', config });
  const client = createServerClient(
    config,
    counts,
    makeServerTransport(undefined, () => async (body) => {
      inThread.push(String(body));
      return { statusCode: 200 };
    }),
    over.thread,
  );
  setCurrentClient(client);
  client.init();
  s = {
    delivered,
    inThread,
    counted,
    thread: over.thread,
    gone: over.gone,
    answer: async () => ({ statusCode: 200 }),
  };
});

afterEach(() => {
  for (const port of ports) port.close();
});

/** A request's transaction, started and ended as lib/server/trace-requests.ts does. */
function traced(attributes: Record<string, string> = {}): Span {
  const span = startNewTrace(() =>
    startInactiveSpan({ name: 'GET /orders/[id]', op: 'http.server', forceTransaction: true, attributes }),
  );
  span.end();
  return span;
}

function payloadOf(raw: string): {
  header: Record<string, unknown>;
  type: unknown;
  event: Record<string, unknown>;
} {
  const [header, items] = parseEnvelope(raw);
  const [itemHeader, payload] = items[0]!;
  return {
    header: header as Record<string, unknown>,
    type: itemHeader.type,
    event: payload as Record<string, unknown>,
  };
}

describe('transactions prepared on a thread of their own', () => {
  it('prepares a finished transaction on the thread, not the request’s: scrubbed, in the trace the request started', async () => {
    const span = traced({ 'url.full': 'https://shop.example/orders/42?token=tok_live_4242' });
    await until(() => s.delivered.length === 1);
    expect(s.inThread).toEqual([]);
    const { header, type, event } = payloadOf(s.delivered[0]!);
    expect(type).toBe('transaction');
    const { traceId, spanId } = span.spanContext();
    expect((header.trace as Record<string, unknown>).trace_id).toBe(traceId);
    expect(header.event_id).toBe(event.event_id);
    expect(event).toMatchObject({
      transaction: 'GET /orders/[id]',
      release: 'r1',
      environment: 'test',
      platform: 'node',
      contexts: {
        trace: { trace_id: traceId, span_id: spanId, op: 'http.server' },
        runtime: { name: 'node', version: process.version },
      },
      sdk: { integrations: ['EventFilters', 'Dedupe', 'LinkedErrors'] },
    });
    expect(s.delivered[0]).not.toContain('tok_live_4242');
    await until(() => s.counted.length === 1);
    expect(s.counted).toEqual(['transaction sent 2xx']);
  });

  it('makes room again as the thread takes what it was handed: more than the bound, one after another, all delivered', async () => {
    for (let i = 1; i <= 4; i += 1) {
      traced();
      await until(() => s.delivered.length === i);
    }
    await until(() => s.counted.length === 4);
    expect(s.counted).toEqual(Array(4).fill('transaction sent 2xx'));
  });

  it('counts on the request’s thread what the thread counts: a refusal by its status, then the SDK’s rate limit', async () => {
    s.answer = async () => ({
      statusCode: 429,
      headers: { 'retry-after': '60', 'x-sentry-rate-limits': null },
    });
    traced();
    await until(() => s.counted.length === 1);
    traced();
    await until(() => s.counted.length === 2);
    expect(s.counted).toEqual(['transaction dropped ingest_429', 'transaction dropped ratelimit_backoff']);
    // No client report about the drop goes to the ingest, at a flush either.
    await s.thread.flush(2000);
    expect(s.delivered).toHaveLength(1);
  });

  it('counts an ingest that could not be asked as a network error', async () => {
    s.answer = () => Promise.reject(new Error('unreachable'));
    traced();
    await until(() => s.counted.length === 1);
    expect(s.counted).toEqual(['transaction dropped network_error']);
  });

  it('flushes: resolves once the thread’s envelopes are answered, and false at its time limit', async () => {
    let answer!: (response: TransportMakeRequestResponse) => void;
    s.answer = () => new Promise((resolve) => (answer = resolve));
    traced();
    await until(() => s.delivered.length === 1);
    let flushed: boolean | undefined;
    void s.thread.flush(2000).then((done) => (flushed = done));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(flushed).toBeUndefined();
    answer({ statusCode: 200 });
    await until(() => flushed !== undefined);
    expect(flushed).toBe(true);

    s.answer = () => new Promise(() => undefined);
    traced();
    await until(() => s.delivered.length === 2);
    expect(await s.thread.flush(50)).toBe(false);
  });

  it('once the thread is gone, prepares on the request’s thread, and a flush waits no more', async () => {
    s.gone();
    traced();
    await until(() => s.inThread.length === 1);
    expect(payloadOf(s.inThread[0]!).type).toBe('transaction');
    expect(s.delivered).toEqual([]);
    expect(await s.thread.flush(60_000)).toBe(false);
  });

  it('a flush waiting when the thread ends resolves false', async () => {
    s.answer = () => new Promise(() => undefined);
    traced();
    await until(() => s.delivered.length === 1);
    const flushing = s.thread.flush(60_000);
    s.gone();
    expect(await flushing).toBe(false);
  });

  it('never sends an error report through the thread', async () => {
    s.answer = async () => ({ statusCode: 200 });
    const { getClient } = await import('@sentry/core');
    getClient()!.captureException(new Error('boom'));
    getClient()!.captureEvent({ message: 'an event of another kind', level: 'error' });
    await until(() => s.inThread.length === 2);
    expect(s.inThread.map((raw) => payloadOf(raw).type)).toEqual(['event', 'event']);
    expect(s.delivered).toEqual([]);
  });

  it('counts as dropped the transactions of a batch that could not be posted', async () => {
    const counted: string[] = [];
    const { thread } = transactionsOver(
      {
        postMessage: () => {
          throw new Error('could not be cloned');
        },
        onMessage: () => undefined,
      },
      () => Promise.resolve({}),
      {
        report: (outcome, reason) => counted.push(`report ${outcome} ${reason}`),
        transaction: (outcome, reason) => counted.push(`transaction ${outcome} ${reason}`),
      },
    );
    expect(thread.post({ type: 'transaction' })).toBe(true);
    expect(thread.post({ type: 'transaction' })).toBe(true);
    // A thread that says nothing back: the flush ends at its time limit.
    expect(await thread.flush(10)).toBe(false);
    await until(() => counted.length === 2);
    expect(counted).toEqual([
      'transaction dropped internal_sdk_error',
      'transaction dropped internal_sdk_error',
    ]);
  });

  it('drops, and counts, what the thread has not taken past its bound: the memory a burst holds is bounded', async () => {
    const counted: string[] = [];
    const posted: unknown[][] = [];
    let listener: (value: unknown) => void = () => undefined;
    const { thread } = transactionsOver(
      { postMessage: (value) => posted.push(value as unknown[]), onMessage: (l) => (listener = l) },
      () => Promise.resolve({}),
      {
        report: (outcome, reason) => counted.push(`report ${outcome} ${reason}`),
        transaction: (outcome, reason) => counted.push(`transaction ${outcome} ${reason}`),
      },
      2,
    );
    for (let i = 0; i < 3; i += 1) expect(thread.post({ type: 'transaction' })).toBe(true);
    expect(counted).toEqual(['transaction dropped queue_overflow']);
    await until(() => posted.length === 1);
    expect(posted[0]).toHaveLength(2);
    // Once the thread took them, there is room again.
    listener([{ kind: 'taken', count: 2 }]);
    expect(thread.post({ type: 'transaction' })).toBe(true);
    expect(counted).toHaveLength(1);
  });

  it('lets 1,024 transactions wait for the thread by default, and drops the 1,025th (docs/performance.md)', () => {
    const counted: string[] = [];
    const { thread } = transactionsOver(
      { postMessage: () => undefined, onMessage: () => undefined },
      () => Promise.resolve({}),
      { report: () => undefined, transaction: (outcome, reason) => counted.push(`${outcome} ${reason}`) },
    );
    for (let i = 0; i < 1024; i += 1) thread.post({ type: 'transaction' });
    expect(counted).toEqual([]);
    thread.post({ type: 'transaction' });
    expect(counted).toEqual(['dropped queue_overflow']);
  });
});

describe('the thread’s side alone', () => {
  it('says how many transactions it took, not the other messages it got', async () => {
    const channel = new MessageChannel();
    ports.push(channel.port1, channel.port2);
    const said: { kind: string; count?: number }[] = [];
    channel.port1.on('message', (batch: { kind: string; count?: number }[]) => said.push(...batch));
    prepareTransactions(endOf(channel.port2), { kind: 'transactions', config });
    channel.port1.postMessage([
      {
        kind: 'transaction',
        event: { type: 'transaction', transaction: 'GET /', start_timestamp: 1, timestamp: 2 },
      },
      { kind: 'answer', id: 99, response: {} },
      { kind: 'flush', id: 1, timeoutMs: 1000 },
      {
        kind: 'transaction',
        event: { type: 'transaction', transaction: 'GET /', start_timestamp: 1, timestamp: 2 },
      },
    ]);
    await until(() => said.some((item) => item.kind === 'flushed'));
    const taken = said.filter((item) => item.kind === 'taken').reduce((sum, item) => sum + item.count!, 0);
    expect(taken).toBe(2);
  });
});

describe('the thread itself', () => {
  const FIXTURES = path.join(__dirname, '__fixtures__');
  const none = { report: () => undefined, transaction: () => undefined };

  it('starts with the client’s settings, delivers what it hands back, and once it ends hands nothing more to it', async () => {
    const delivered: string[] = [];
    const thread = startTransactionThread(
      path.join(FIXTURES, 'prepares.cjs'),
      config,
      async (body) => {
        delivered.push(String(body));
        return { statusCode: 200 };
      },
      none,
    )!;
    expect(thread.post({ type: 'transaction', transaction: 'GET /' })).toBe(true);
    await until(() => delivered.length === 1);
    expect(parseEnvelope(delivered[0]!)[0]).toEqual({ kind: 'transactions', config });
    expect(await thread.flush(2000)).toBe(true);
    thread.post({ type: 'transaction', transaction: 'exit' });
    // Ended: a flush waits no more, and the client prepares on its own thread again.
    await until(async () => (await thread.flush(2000)) === false, 3000);
    expect(thread.post({ type: 'transaction' })).toBe(false);
  });

  it('ends this side when the thread fails to load', async () => {
    const thread = startTransactionThread(
      path.join(FIXTURES, 'fails-to-load.cjs'),
      config,
      () => Promise.resolve({}),
      none,
    )!;
    await until(async () => (await thread.flush(2000)) === false, 3000);
    expect(thread.post({ type: 'transaction' })).toBe(false);
  });

  it('gives none for a thread that cannot be started at all', () => {
    expect(
      startTransactionThread('not-a-path-node-accepts.js', config, () => Promise.resolve({}), none),
    ).toBeNull();
  });
});
