// The report queue's rules one at a time, on a clock the test moves (queue.test.ts runs it against
// a stand-in ingest in real time): its jitter, its counts, the edges of its bounds, a disk that
// fails, an ingest that answers one at a time after a failure, and what start, persist and stop do.
import type { IngestAnswer } from '@lib/reporting/ingest/ingest-messages';
import {
  createReportQueue,
  factsOf,
  type QueueEvents,
  type QueueLimits,
  type ReportQueue,
} from '@lib/reporting/queue/queue';
import { memoryStore, type EnvelopeStore, type StoredEntry } from '@lib/reporting/queue/store';

import { DSN, envelope, idOf } from '../../../../support/numbered-reports';
const answer = (status: number, extra: Partial<IngestAnswer> = {}): IngestAnswer => ({
  status,
  rateLimits: null,
  retryAfter: null,
  body: '',
  ...extra,
});

const queues: ReportQueue[] = [];
beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
afterEach(() => {
  for (const queue of queues.splice(0)) queue.stop();
  jest.useRealTimers();
  jest.restoreAllMocks();
});

/**
 * A queue on the fake clock whose ingest answers with `reply` (a function the test may change);
 * what was sent (id, ms since the start, how many were in flight then) and every event.
 */
function harness({
  limits = {},
  random = () => 0.5,
  store = memoryStore(),
}: { limits?: Partial<QueueLimits>; random?: () => number; store?: EnvelopeStore } = {}) {
  const start = Date.now();
  const sent: { id: number; at: number; inFlight: number }[] = [];
  const events: string[] = [];
  let inFlight = 0;
  const state = {
    reply: (): IngestAnswer | Promise<IngestAnswer> => answer(200),
    /** How long the ingest takes to answer, in fake ms. */
    takesMs: 0,
  };
  const queue = createReportQueue({
    store,
    send: async (body) => {
      inFlight += 1;
      sent.push({ id: idOf(body), at: Date.now() - start, inFlight });
      try {
        if (state.takesMs > 0) await new Promise((resolve) => setTimeout(resolve, state.takesMs));
        return await state.reply();
      } finally {
        inFlight -= 1;
      }
    },
    limits,
    now: () => Date.now(),
    random,
    events: {
      queued: (source) => events.push(`queued ${source}`),
      sent: (source) => events.push(`sent ${source}`),
      retried: (reason) => events.push(`retried ${reason}`),
      dropped: (source, reason) => events.push(`dropped ${source} ${reason}`),
      handedOver: (source, direction) => events.push(`handed ${direction} ${source}`),
    } satisfies QueueEvents,
  });
  queues.push(queue);
  const wait = async (ms: number) => {
    for (let passed = 0; passed < ms; passed += 100)
      await jest.advanceTimersByTimeAsync(Math.min(100, ms - passed));
  };
  return { queue, sent, events, state, wait, start };
}

describe('the wait after a failure', () => {
  it.each([
    [0, [0, 800, 2400, 5600]],
    [1, [0, 1200, 3600, 8400]],
  ])('is the back-off times 0.8 + 0.4 × the jitter (%p)', async (jitter, times) => {
    const { queue, sent, state, wait } = harness({ random: () => jitter });
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    await wait(9000);
    expect(sent.map(({ at }) => at)).toEqual(times);
  });

  it('holds a new envelope back too: nothing is tried before it ends', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    await wait(500);
    expect(await queue.submit('server', envelope(2))).toEqual({ kind: 'queued' });
    expect(sent.map(({ id }) => id)).toEqual([1]);
    state.reply = () => answer(200);
    await wait(600);
    expect(sent.map(({ id }) => id)).toEqual([1, 1, 2]);
  });
});

describe('what it counts', () => {
  it('envelopes, bytes, memory and the age of the oldest, per source, and nothing once sent', async () => {
    const { queue, state, wait } = harness();
    state.reply = () => answer(503);
    await queue.start();
    const server = envelope(1);
    const browser = envelope(2, 'event', 100);
    await queue.submit('server', server);
    await wait(200);
    await queue.submit('browser', browser);
    await wait(300);
    expect(queue.stats()).toEqual({
      envelopes: { server: 1, browser: 1 },
      bytes: { server: server.length, browser: browser.length },
      oldestAgeSeconds: 0.5,
      memoryBytes: server.length + browser.length,
    });
    state.reply = () => answer(200);
    await wait(2000);
    expect(queue.stats()).toEqual({
      envelopes: { server: 0, browser: 0 },
      bytes: { server: 0, browser: 0 },
      oldestAgeSeconds: 0,
      memoryBytes: 0,
    });
  });
});

describe('how an answer ends an envelope', () => {
  it.each([
    [200, 'sent server'],
    [299, 'sent server'],
    [199, 'dropped server rejected'],
    [300, 'dropped server rejected'],
    [413, 'dropped server rejected'],
  ])('%i: %s', async (status, event) => {
    const { queue, events, state, wait } = harness();
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    state.reply = () => answer(status);
    await wait(1100);
    expect(events.filter((line) => !line.startsWith('retried'))).toEqual(['queued server', event]);
    expect(queue.stats().envelopes.server).toBe(0);
  });
});

describe('the edges of its bounds', () => {
  it.each([
    [3000, 'sent server'],
    [2999, 'dropped server expired'],
  ])('with an age bound of %i ms, an envelope 3 s old when next tried is %s', async (maxAgeMs, outcome) => {
    const { queue, events, state, wait } = harness({ limits: { maxAgeMs } });
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    // Tried again at 1 s (fails) and at 3 s, when it is exactly 3 s old.
    await wait(2000);
    state.reply = () => answer(200);
    await wait(1100);
    expect(events.filter((line) => line.startsWith('sent') || line.startsWith('dropped'))).toEqual([outcome]);
  });

  it('takes an envelope of exactly its share of the bytes, and refuses one byte more', async () => {
    const body = envelope(1);
    const { queue, events, state } = harness({ limits: { maxBytes: 2 * body.length } });
    state.reply = () => answer(500);
    await queue.start();
    expect(await queue.submit('browser', body)).toEqual({ kind: 'queued' });
    expect(await queue.submit('browser', envelope(2, 'event', 1))).toEqual({ kind: 'full' });
    expect(events).toContain('dropped browser too_large');
  });

  it('fills a share to its last byte', async () => {
    const one = envelope(1);
    const two = envelope(2);
    const { queue, state } = harness({ limits: { maxBytes: 2 * (one.length + two.length) } });
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('browser', one);
    expect(await queue.submit('browser', two)).toEqual({ kind: 'queued' });
    expect(await queue.submit('browser', envelope(3))).toEqual({ kind: 'full' });
  });
});

describe('when it looks again', () => {
  it('at the earliest wake-up asked for: a longer Retry-After does not push back a shorter wait', async () => {
    const { queue, events, state, wait } = harness({
      limits: { maxEnvelopes: 6, concurrency: 3, minBackoffMs: 100, maxBackoffMs: 100, maxAgeMs: 1000 },
    });
    const replies = [answer(503), answer(503), answer(503, { retryAfter: '60' })];
    state.reply = () => replies.shift() ?? answer(503);
    state.takesMs = 950;
    await queue.start();
    const submitted = [1, 2, 3].map((id) => queue.submit('browser', envelope(id)));
    // All three fail at 950 ms: the first two ask to look again at 1,050, the last (Retry-After,
    // held to the age bound) at 1,950. At 1,050 all three are past their 1 s and go, freeing the
    // browser's share of three.
    await wait(1100);
    expect(await Promise.all(submitted)).toEqual(Array(3).fill({ kind: 'queued' }));
    expect(events.filter((line) => line.startsWith('dropped'))).toEqual(
      Array(3).fill('dropped browser expired'),
    );
    expect(await queue.submit('browser', envelope(4))).toEqual({ kind: 'queued' });
  });
});

describe('a store that cannot write', () => {
  it.each([
    [{ code: 'ENOSPC' }, 'ENOSPC'],
    [{}, 'unknown'],
  ])('refuses the envelope as full, logs why (%p), and counts nothing', async (fields, reason) => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const failing: EnvelopeStore = {
      ...memoryStore(),
      put: () => Promise.reject(Object.assign(new Error('disk full'), fields)),
    };
    const { queue, events, state } = harness({ store: failing });
    state.reply = () => answer(500);
    await queue.start();
    expect(await queue.submit('server', envelope(1))).toEqual({ kind: 'full' });
    expect(events).toContain('dropped server disk_error');
    expect(queue.stats().envelopes).toEqual({ server: 0, browser: 0 });
    expect(queue.stats().bytes).toEqual({ server: 0, browser: 0 });
    const line = stderr.mock.calls
      .map(([chunk]) => JSON.parse(String(chunk)) as { event: string; reason?: string })
      .find(({ event }) => event === 'reporting.queue_write_failed');
    expect(line?.reason).toBe(reason);
  });
});

describe('the order it sends in, and how many at once', () => {
  it('oldest first, even when a later envelope was written first', async () => {
    const store = memoryStore();
    let releaseFirst: () => void = () => {};
    let puts = 0;
    const slowFirst: EnvelopeStore = {
      ...store,
      put: async (facts, body) => {
        puts += 1;
        const entry = store.put(facts, body);
        if (puts === 1) await new Promise<void>((resolve) => (releaseFirst = resolve));
        return entry;
      },
    };
    const { queue, sent, state, wait } = harness({ store: slowFirst });
    state.reply = () => answer(500);
    await queue.start();
    // Envelope 1 fails at once and is being written; 2 and 3 queue behind it and are written first.
    const first = queue.submit('server', envelope(1));
    await jest.advanceTimersByTimeAsync(0);
    await queue.submit('server', envelope(2));
    await queue.submit('server', envelope(3));
    releaseFirst();
    await first;
    state.reply = () => answer(200);
    await wait(1100);
    expect(sent.map(({ id }) => id)).toEqual([1, 1, 2, 3]);
  });

  it('one at a time until the ingest has answered once, then up to its concurrency', async () => {
    const { queue, sent, state, wait } = harness({ limits: { concurrency: 3 } });
    state.reply = () => answer(500);
    await queue.start();
    for (let id = 1; id <= 7; id += 1) await queue.submit('server', envelope(id));
    state.reply = () => answer(200);
    state.takesMs = 50;
    await wait(2000);
    const retries = sent.slice(1);
    expect(retries[0]).toMatchObject({ id: 1, inFlight: 1 });
    expect(Math.max(...retries.map(({ inFlight }) => inFlight))).toBe(3);
    expect(retries.map(({ id }) => id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('sends what a rate limit held once the limit ends, with no new envelope to wake it', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(429, { rateLimits: '60:error:organization', retryAfter: '60' });
    await queue.start();
    expect(await queue.submit('server', envelope(1))).toMatchObject({
      kind: 'answered',
      reply: { status: 429 },
    });
    state.reply = () => answer(200);
    await wait(59_000);
    expect(sent.map(({ id }) => id)).toEqual([1]);
    await wait(1100);
    expect(sent.map(({ id }) => id)).toEqual([1, 1]);
  });

  it('holds everything 60 s after a 429 that names no limit (docs/report-queue.md): not tried at 59,999 ms, tried at 60,000', async () => {
    const { queue, sent, state } = harness();
    state.reply = () => answer(429);
    await queue.start();
    const started = Date.now();
    expect(await queue.submit('server', envelope(1))).toMatchObject({
      kind: 'answered',
      reply: { status: 429 },
    });
    state.reply = () => answer(200);
    // Another category: "all" is held, not only the one that was limited.
    await queue.submit('server', envelope(2, 'transaction'));
    await jest.advanceTimersByTimeAsync(59_999 - (Date.now() - started));
    expect(sent.map(({ id }) => id)).toEqual([1]);
    await jest.advanceTimersByTimeAsync(1);
    expect(sent.map(({ id }) => id).sort()).toEqual([1, 1, 2]);
  });

  it('looks again when the first of several rate limits ends, not the last', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(429, { rateLimits: '60:error:organization, 120:transaction:organization' });
    await queue.start();
    await queue.submit('server', envelope(1));
    await queue.submit('server', envelope(2, 'transaction'));
    state.reply = () => answer(200);
    await wait(61_000);
    expect(sent.map(({ id }) => id)).toEqual([1, 1]);
    await wait(60_000);
    expect(sent.map(({ id }) => id)).toEqual([1, 1, 2]);
  });

  it('sends what a rate limit held when the limit ends, even while a slow send is still under way', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(429, { rateLimits: '60:error:organization', retryAfter: '60' });
    await queue.start();
    await queue.submit('server', envelope(1));
    // A transaction's send that takes longer than the error's limit.
    state.reply = () => answer(200);
    state.takesMs = 120_000;
    void queue.submit('server', envelope(2, 'transaction'));
    await wait(100);
    state.takesMs = 0;
    await wait(61_000);
    expect(sent.map(({ id }) => id)).toEqual([1, 2, 1]);
  });

  it('sends an envelope with no items whatever is rate-limited: no limit applies to it', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(429, { rateLimits: '60::organization', retryAfter: '60' });
    await queue.start();
    await queue.submit('server', envelope(1));
    state.reply = () => answer(200);
    await queue.submit('server', `{"event_id":"${'0'.repeat(31)}2","dsn":"${DSN}","x":"report 2"}\n`);
    await wait(1000);
    expect(sent.map(({ id }) => id)).toEqual([1, 2]);
  });

  it('sends an envelope while only some of its categories are rate-limited', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(429, { rateLimits: '60:error:organization', retryAfter: '60' });
    await queue.start();
    await queue.submit('server', envelope(1));
    state.reply = () => answer(200);
    await queue.submit('server', `${envelope(2)}{"type":"attachment","length":2}\nab\n`);
    await wait(1000);
    expect(sent.map(({ id }) => id)).toEqual([1, 2]);
  });

  it('sends a transaction while only errors are rate-limited', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(429, { rateLimits: '60:error:organization', retryAfter: '60' });
    await queue.start();
    await queue.submit('server', envelope(1));
    state.reply = () => answer(200);
    await queue.submit('server', envelope(2, 'transaction'));
    await wait(1000);
    expect(sent.map(({ id }) => id)).toEqual([1, 2]);
  });
});

describe('what a full share gives up', () => {
  it('a browser’s error is refused when its share is full, and the server’s transactions stay', async () => {
    const { queue, events, state } = harness({ limits: { maxEnvelopes: 4 } });
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1, 'transaction'));
    await queue.submit('browser', envelope(2));
    await queue.submit('browser', envelope(3));
    expect(await queue.submit('browser', envelope(4))).toEqual({ kind: 'full' });
    expect(events.filter((event) => event.startsWith('dropped'))).toEqual(['dropped browser full']);
    expect(queue.stats().envelopes).toEqual({ server: 1, browser: 2 });
  });

  it('a server error makes room only among the server’s own transactions, never the browser’s', async () => {
    const { queue, events, state } = harness({ limits: { maxEnvelopes: 4 } });
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    await queue.submit('server', envelope(2));
    await queue.submit('browser', envelope(3, 'transaction'));
    expect(await queue.submit('server', envelope(4))).toEqual({ kind: 'full' });
    expect(events.filter((event) => event.startsWith('dropped'))).toEqual(['dropped server full']);
    expect(queue.stats().envelopes).toEqual({ server: 2, browser: 1 });
  });
});

describe('start, persist and stop', () => {
  /** A store that hands back `left` as an earlier process's entries. */
  function leftBehind(left: StoredEntry[]): EnvelopeStore & { removed: string[] } {
    const store = memoryStore();
    const removed: string[] = [];
    return {
      ...store,
      load: () => Promise.resolve(left),
      read: (entry) => Promise.resolve(Buffer.from(envelope(Number(entry.id)))),
      remove: (entry) => {
        removed.push(entry.id);
        return Promise.resolve();
      },
      removed,
    };
  }
  const entry = (id: number, source: 'server' | 'browser' = 'server'): StoredEntry => ({
    id: String(id),
    source,
    queuedAt: Date.now(),
    headers: {},
    categories: ['error'],
    error: true,
    bytes: envelope(id).length,
  });

  it('takes up what an earlier process left, within the bounds, says so, and sends it at once', async () => {
    const stderr = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const store = leftBehind([entry(1), entry(2), entry(3), entry(4, 'browser')]);
    const { queue, sent, events, wait } = harness({ store, limits: { maxEnvelopes: 4 } });
    await queue.start();
    expect(store.removed).toEqual(['3']);
    expect(events).toEqual(['dropped server full']);
    const line = stderr.mock.calls
      .map(([chunk]) => JSON.parse(String(chunk)) as { event: string; envelopes?: number })
      .find(({ event }) => event === 'reporting.queue_resumed');
    expect(line?.envelopes).toBe(3);
    await wait(100);
    expect(sent.map(({ id }) => id).sort()).toEqual([1, 2, 4]);
  });

  it('says nothing and waits for nothing when nothing was left', async () => {
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const { queue } = harness();
    await queue.start();
    expect(String(stdout.mock.calls)).not.toContain('reporting.queue_resumed');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('persists at once when nothing is being written, and gives up on a write after its time', async () => {
    const store = memoryStore();
    const stuck: EnvelopeStore = { ...store, put: () => new Promise(() => {}) };
    const idle = harness();
    let done = false;
    void idle.queue.persist(60_000).then(() => (done = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(done).toBe(true);

    const busy = harness({ store: stuck });
    busy.state.reply = () => answer(500);
    await busy.queue.start();
    void busy.queue.submit('server', envelope(1));
    await jest.advanceTimersByTimeAsync(0);
    let persisted = false;
    void busy.queue.persist(1000).then(() => (persisted = true));
    await jest.advanceTimersByTimeAsync(999);
    expect(persisted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(persisted).toBe(true);
  });

  /** A memory store whose writes take `delaysMs` in turn (the last one for every write after). */
  function slowStore(...delaysMs: number[]): EnvelopeStore {
    const store = memoryStore();
    let writes = 0;
    return {
      ...store,
      put: async (facts, body) => {
        const delay = delaysMs[Math.min(writes, delaysMs.length - 1)];
        writes += 1;
        await new Promise((resolve) => setTimeout(resolve, delay));
        return store.put(facts, body);
      },
    };
  }

  it('persists as soon as the write under way is done, not at its time limit', async () => {
    const { queue, state } = harness({ store: slowStore(100) });
    state.reply = () => answer(500);
    await queue.start();
    void queue.submit('server', envelope(1));
    await jest.advanceTimersByTimeAsync(0);
    let persisted = false;
    void queue.persist(60_000).then(() => (persisted = true));
    await jest.advanceTimersByTimeAsync(99);
    expect(persisted).toBe(false);
    await jest.advanceTimersByTimeAsync(1);
    expect(persisted).toBe(true);
    // And at once for the next, with nothing being written.
    let again = false;
    void queue.persist(60_000).then(() => (again = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(again).toBe(true);
  });

  it('holds an envelope that comes while the one before it is being written, behind it', async () => {
    // A write slower than the back-off after envelope 1's failure.
    const { queue, sent, state } = harness({ store: slowStore(5000) });
    state.reply = () => answer(500);
    await queue.start();
    void queue.submit('server', envelope(1));
    await jest.advanceTimersByTimeAsync(1500);
    // The back-off is over and the ingest is back, but envelope 1 is still being written: 2 waits
    // its turn behind it.
    state.reply = () => answer(200);
    const second = queue.submit('server', envelope(2));
    await jest.advanceTimersByTimeAsync(0);
    expect(sent.map(({ id }) => id)).toEqual([1]);
    await jest.advanceTimersByTimeAsync(5000);
    expect(await second).toEqual({ kind: 'queued' });
  });

  it('persists once every write under way is done, not the first of them', async () => {
    const { queue, state } = harness({ store: slowStore(100, 200) });
    state.reply = () => answer(500);
    await queue.start();
    void queue.submit('server', envelope(1));
    await jest.advanceTimersByTimeAsync(0);
    void queue.submit('server', envelope(2));
    await jest.advanceTimersByTimeAsync(0);
    let persisted = false;
    void queue.persist(60_000).then(() => (persisted = true));
    await jest.advanceTimersByTimeAsync(150);
    expect(persisted).toBe(false);
    await jest.advanceTimersByTimeAsync(100);
    expect(persisted).toBe(true);
  });

  it('holds a new envelope back during a back-off even when nothing waits (the failed one was too large to keep)', async () => {
    const small = envelope(2);
    const { queue, sent, state } = harness({ limits: { maxBytes: 2 * small.length } });
    state.reply = () => answer(500);
    await queue.start();
    expect(await queue.submit('server', envelope(1, 'event', 200))).toEqual({ kind: 'full' });
    expect(await queue.submit('server', small)).toEqual({ kind: 'queued' });
    expect(sent.map(({ id }) => id)).toEqual([1]);
  });

  it('queues what is submitted once stopped, and sends none of it', async () => {
    const { queue, sent, wait } = harness();
    await queue.start();
    queue.stop();
    expect(await queue.submit('server', envelope(1))).toEqual({ kind: 'queued' });
    await wait(2000);
    expect(sent).toEqual([]);
  });

  it('sets no timer for what is submitted once stopped', async () => {
    const { queue } = harness();
    await queue.start();
    queue.stop();
    await queue.submit('server', envelope(1));
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends nothing more once stopped, even when a send under way ends after the stop', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    await queue.submit('server', envelope(2));
    // The ingest is back but slow: the first retry is under way when the process stops.
    state.reply = () => answer(200);
    state.takesMs = 500;
    await wait(1200);
    expect(sent.map(({ id }) => id)).toEqual([1, 1]);
    queue.stop();
    await wait(5000);
    expect(sent.map(({ id }) => id)).toEqual([1, 1]);
  });

  it('sends an envelope again that was written while on its way and then not taken', async () => {
    const { queue, sent, state, wait } = harness();
    await queue.start();
    state.reply = () => answer(500);
    state.takesMs = 100;
    const answered = queue.submit('server', envelope(1));
    await jest.advanceTimersByTimeAsync(10);
    // Told to stop while it is on its way: written, marked as being sent.
    await queue.persist(1000);
    await jest.advanceTimersByTimeAsync(100);
    expect(await answered).toEqual({ kind: 'queued' });
    state.reply = () => answer(200);
    state.takesMs = 0;
    await wait(3000);
    expect(sent.map(({ id }) => id)).toEqual([1, 1]);
  });

  it('sends nothing more once stopped, its retry timer cleared', async () => {
    const { queue, sent, state, wait } = harness();
    state.reply = () => answer(500);
    await queue.start();
    await queue.submit('server', envelope(1));
    queue.stop();
    expect(jest.getTimerCount()).toBe(0);
    await wait(5000);
    expect(sent).toHaveLength(1);
  });
});

describe('an envelope’s facts', () => {
  it('are its data categories, whether it holds an error and its event id, and a default for what cannot be read', () => {
    const eventId = '00000000000000000000000000000001';
    expect(factsOf(Buffer.from(envelope(1)))).toEqual({ categories: ['error'], error: true, eventId });
    expect(factsOf(Buffer.from(envelope(1, 'transaction')))).toEqual({
      categories: ['transaction'],
      error: false,
      eventId,
    });
    expect(factsOf(Buffer.from('not an envelope'))).toEqual({ categories: ['default'], error: false });
    // A session's envelope has no event id; one that is not a string is none either.
    expect(factsOf(Buffer.from('{}\n{"type":"session"}\n{}\n'))).toEqual({
      categories: ['session'],
      error: false,
    });
    expect(factsOf(Buffer.from('{"event_id":7}\n{"type":"event"}\n{}\n')).eventId).toBeUndefined();
  });
});
