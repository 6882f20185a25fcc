import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IngestAnswer } from '@lib/reporting/ingest/ingest-messages';
import { createReportQueue, type QueueLimits, type ReportQueue } from '@lib/reporting/queue/queue';
import { folderStore, memoryStore, type EnvelopeStore } from '@lib/reporting/queue/store';

import { envelope, idOf } from '../../../../support/numbered-reports';
import { until } from '../../../../support/until';

type Mode = 'ok' | 'failing' | 'refusing' | 'rate-limited';

/** A stand-in ingest: what it took, in order, and a mode. */
function fakeIngest() {
  const taken: number[] = [];
  let mode: Mode = 'ok';
  const send = async (body: Uint8Array | string): Promise<IngestAnswer> => {
    await new Promise((resolve) => setImmediate(resolve));
    if (mode === 'refusing') throw Object.assign(new Error('connect ECONNREFUSED'), { name: 'Error' });
    if (mode === 'failing') return { status: 500, rateLimits: null, retryAfter: null, body: '' };
    if (mode === 'rate-limited')
      return { status: 429, rateLimits: '60:error:organization', retryAfter: '60', body: '' };
    taken.push(idOf(body));
    return { status: 200, rateLimits: null, retryAfter: null, body: '{}' };
  };
  return { taken, send, setMode: (next: Mode) => void (mode = next) };
}

const FAST: Partial<QueueLimits> = { minBackoffMs: 20, maxBackoffMs: 80 };
const folders: string[] = [];
const queues: ReportQueue[] = [];
afterEach(() => {
  for (const queue of queues.splice(0)) queue.stop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function open(
  ingest: ReturnType<typeof fakeIngest>,
  store: EnvelopeStore,
  limits: Partial<QueueLimits> = {},
) {
  const dropped: string[] = [];
  const queue = createReportQueue({
    store,
    send: ingest.send,
    limits: { ...FAST, ...limits },
    random: () => 0.5,
    events: { dropped: (source, reason) => dropped.push(`${source}:${reason}`) },
  });
  queues.push(queue);
  return { queue, dropped };
}

const tempFolder = () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'report-queue-'));
  folders.push(folder);
  return folder;
};

describe('the report queue', () => {
  it('sends at once while the ingest takes envelopes, and writes nothing', async () => {
    const ingest = fakeIngest();
    const folder = tempFolder();
    const { queue } = open(ingest, folderStore(folder));
    await queue.start();
    expect(await queue.submit('server', envelope(1))).toMatchObject({
      kind: 'answered',
      reply: { status: 200 },
    });
    expect(ingest.taken).toEqual([1]);
    expect(readdirSync(folder)).toEqual([]);
  });

  it.each<Mode>(['failing', 'refusing'])(
    'keeps what the ingest did not take (%s) and delivers each once, in order, when it is back',
    async (mode) => {
      const ingest = fakeIngest();
      const { queue } = open(ingest, memoryStore());
      await queue.start();
      ingest.setMode(mode);
      const answers = [];
      for (let id = 1; id <= 20; id += 1) answers.push(await queue.submit('server', envelope(id)));
      expect(answers.every((answer) => answer.kind === 'queued')).toBe(true);
      expect(queue.stats().envelopes.server).toBe(20);
      await new Promise((resolve) => setTimeout(resolve, 100));
      ingest.setMode('ok');
      await until(() => queue.stats().envelopes.server === 0);
      // Oldest first, a few at once: each arrives once, whatever order the ingest saw them finish in.
      expect([...ingest.taken].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    },
  );

  it('outlives the process when its folder is kept: a new queue sends what the last one held', async () => {
    const ingest = fakeIngest();
    const folder = tempFolder();
    const first = open(ingest, folderStore(folder)).queue;
    await first.start();
    ingest.setMode('failing');
    for (let id = 1; id <= 5; id += 1) await first.submit(id % 2 ? 'server' : 'browser', envelope(id));
    first.stop();
    expect(readdirSync(folder)).toHaveLength(5);
    ingest.setMode('ok');
    const second = open(ingest, folderStore(folder)).queue;
    await second.start();
    await until(() => ingest.taken.length === 5);
    expect([...ingest.taken].sort()).toEqual([1, 2, 3, 4, 5]);
    await until(() => readdirSync(folder).length === 0);
  });

  it('writes an envelope on its way at persist, never sends it twice, and removes it once the ingest took it', async () => {
    let release: () => void = () => {};
    let calls = 0;
    const ingest = fakeIngest();
    const folder = tempFolder();
    const { queue } = open(
      {
        ...ingest,
        // The first exchange waits until released; any other is answered at once.
        send: async (body) => {
          calls += 1;
          if (calls === 1) await new Promise<void>((resolve) => (release = resolve));
          return ingest.send(body);
        },
      },
      folderStore(folder),
    );
    await queue.start();
    const answer = queue.submit('server', envelope(7));
    await queue.persist(1000);
    expect(readdirSync(folder)).toHaveLength(1);
    // Written, but still on its way: the queue does not send it again meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(calls).toBe(1);
    release();
    expect(await answer).toMatchObject({ kind: 'answered' });
    await until(() => readdirSync(folder).length === 0);
    expect(ingest.taken).toEqual([7]);
  });

  it('gives browsers half of the bound: a flood is refused, and the server’s own reports still fit', async () => {
    const ingest = fakeIngest();
    const { queue, dropped } = open(ingest, memoryStore(), { maxEnvelopes: 20 });
    await queue.start();
    ingest.setMode('failing');
    const flood = [];
    for (let id = 1; id <= 30; id += 1) flood.push((await queue.submit('browser', envelope(id))).kind);
    expect(flood.filter((kind) => kind === 'queued')).toHaveLength(10);
    expect(flood.filter((kind) => kind === 'full')).toHaveLength(20);
    expect(dropped.filter((drop) => drop === 'browser:full')).toHaveLength(20);
    for (let id = 100; id < 110; id += 1)
      expect((await queue.submit('server', envelope(id))).kind).toBe('queued');
    expect(queue.stats().envelopes).toEqual({ server: 10, browser: 10 });
  });

  it('bounds bytes as well as count', async () => {
    const ingest = fakeIngest();
    const { queue } = open(ingest, memoryStore(), { maxBytes: 2 * 1024 * 1024 });
    await queue.start();
    ingest.setMode('failing');
    const big = envelope(1).replace('report 1', `report 1 ${'x'.repeat(400 * 1024)}`);
    const kinds = [];
    for (let i = 0; i < 5; i += 1) kinds.push((await queue.submit('browser', big)).kind);
    expect(kinds).toEqual(['queued', 'queued', 'full', 'full', 'full']);
    expect(queue.stats().bytes.browser).toBeLessThanOrEqual(1024 * 1024);
  });

  it('makes room for a server error by dropping its oldest transaction, never an error', async () => {
    const ingest = fakeIngest();
    const { queue, dropped } = open(ingest, memoryStore(), { maxEnvelopes: 8 });
    await queue.start();
    ingest.setMode('failing');
    for (let id = 1; id <= 2; id += 1) await queue.submit('server', envelope(id, 'transaction'));
    for (let id = 3; id <= 4; id += 1) await queue.submit('server', envelope(id));
    // Full (4 of 4): errors push the transactions out, then there is nothing left to push.
    expect((await queue.submit('server', envelope(5))).kind).toBe('queued');
    expect((await queue.submit('server', envelope(6))).kind).toBe('queued');
    expect((await queue.submit('server', envelope(7))).kind).toBe('full');
    expect((await queue.submit('server', envelope(8, 'transaction'))).kind).toBe('full');
    expect(dropped).toEqual(['server:evicted', 'server:evicted', 'server:full', 'server:full']);
    ingest.setMode('ok');
    await until(() => ingest.taken.length === 4);
    expect([...ingest.taken].sort()).toEqual([3, 4, 5, 6]);
  });

  it('drops what waited longer than the age bound', async () => {
    const ingest = fakeIngest();
    let clock = 1_000_000;
    const dropped: string[] = [];
    const queue = createReportQueue({
      store: memoryStore(),
      send: ingest.send,
      limits: { ...FAST, maxAgeMs: 60_000 },
      now: () => clock,
      random: () => 0.5,
      events: { dropped: (source, reason) => dropped.push(`${source}:${reason}`) },
    });
    queues.push(queue);
    await queue.start();
    ingest.setMode('failing');
    await queue.submit('server', envelope(1));
    clock += 61_000;
    ingest.setMode('ok');
    await queue.submit('server', envelope(2));
    await until(() => queue.stats().envelopes.server === 0);
    expect(dropped).toEqual(['server:expired']);
    expect(ingest.taken).toEqual([2]);
  });

  it('honours a rate limit: keeps the envelope, sends nothing of its category until the limit ends', async () => {
    const ingest = fakeIngest();
    let clock = 1_000_000;
    const queue = createReportQueue({
      store: memoryStore(),
      send: ingest.send,
      limits: FAST,
      now: () => clock,
      random: () => 0.5,
    });
    queues.push(queue);
    await queue.start();
    ingest.setMode('rate-limited');
    const answer = await queue.submit('server', envelope(1));
    expect(answer).toMatchObject({ kind: 'answered', reply: { status: 429 } });
    ingest.setMode('ok');
    await queue.submit('server', envelope(2));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ingest.taken).toEqual([]);
    clock += 61_000;
    // The next look at the queue (a new envelope) finds the limit over.
    await queue.submit('server', envelope(3));
    await until(() => ingest.taken.length === 3);
    expect([...ingest.taken].sort()).toEqual([1, 2, 3]);
  });

  it('backs off after each failure instead of asking a failing ingest again and again', async () => {
    const ingest = fakeIngest();
    let attempts = 0;
    const { queue } = open(
      { ...ingest, send: async (body) => (attempts++, ingest.send(body)) },
      memoryStore(),
      { minBackoffMs: 50, maxBackoffMs: 400 },
    );
    await queue.start();
    ingest.setMode('failing');
    for (let id = 1; id <= 10; id += 1) await queue.submit('server', envelope(id));
    await new Promise((resolve) => setTimeout(resolve, 600));
    // One direct attempt, then one probe per back-off (50, 100, 200 ms…), never the ten envelopes each time.
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(6);
  });

  describe('its waits between attempts, at the documented defaults', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    /** A queue at the defaults, its ingest failing with `answer`; when each attempt came, in ms from the first. */
    async function attemptTimes(answer: IngestAnswer, forMs: number): Promise<number[]> {
      const start = Date.now();
      const times: number[] = [];
      const queue = createReportQueue({
        store: memoryStore(),
        send: async () => {
          times.push(Date.now() - start);
          return answer;
        },
        now: () => Date.now(),
        // The jitter's middle: each wait exactly as the back-off says.
        random: () => 0.5,
      });
      queues.push(queue);
      await queue.start();
      await queue.submit('server', envelope(1));
      for (let passed = 0; passed < forMs; passed += 100) await jest.advanceTimersByTimeAsync(100);
      return times;
    }

    it('start at 1 s after a failure and double with each one in a row, up to 30 s', async () => {
      const failing = { status: 500, rateLimits: null, retryAfter: null, body: '' };
      // Waits of 1, 2, 4, 8, 16, then 30 and 30 s.
      expect(await attemptTimes(failing, 100_000)).toEqual([
        0, 1000, 3000, 7000, 15_000, 31_000, 61_000, 91_000,
      ]);
    });

    it('follow a 5xx’s Retry-After when it asks for longer than 30 s', async () => {
      const unavailable = { status: 503, rateLimits: null, retryAfter: '120', body: '' };
      expect(await attemptTimes(unavailable, 250_000)).toEqual([0, 120_000, 240_000]);
    });
  });
});
