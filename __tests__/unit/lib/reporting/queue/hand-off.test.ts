// Waiting reports outlive their pod (lib/reporting/queue/hand-off.ts): the queue hands what waits
// to a peer and takes what a peer hands it; the stage lets only a peer of the deployment do so;
// the giver moves on from a peer that refuses and keeps what no peer took.
import { randomBytes } from 'node:crypto';
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { IngestAnswer } from '@lib/reporting/ingest/ingest-messages';
import {
  createReportQueue,
  type HandedEnvelope,
  type QueueLimits,
  type ReportQueue,
} from '@lib/reporting/queue/queue';
import { folderStore, memoryStore, type EnvelopeStore } from '@lib/reporting/queue/store';
import {
  ENVELOPE_TYPE,
  HANDOFF_CONCURRENCY,
  HANDOFF_MAX_ENVELOPE_BYTES,
  handOffReports,
  handOffStage,
  handOffWarning,
  INGEST_HEADERS_HEADER,
  QUEUED_AT_HEADER,
  SOURCE_HEADER,
} from '@lib/reporting/queue/hand-off';
import { REPORTS_HANDOFF_PATH } from '@lib/fleet/paths';
import { readSettings } from '@lib/config/settings';
import { rawRequest } from '../../../../support/http';
import { recorderSlot } from '@lib/metrics/record';
import { recorderWith } from '../../../../support/recorder';
import { createUploadBudget } from '@lib/http/upload';

const SECRET = 'a'.repeat(64);
import { DSN, envelope, eventIdOf, idOf } from '../../../../support/numbered-reports';

const failing = async (): Promise<IngestAnswer> => ({
  status: 500,
  rateLimits: null,
  retryAfter: null,
  body: '',
});

const folders: string[] = [];
const queues: ReportQueue[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const queue of queues.splice(0)) queue.stop();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

function open({
  store = memoryStore(),
  send = failing,
  limits = {},
  now,
}: {
  store?: EnvelopeStore;
  send?: (body: Uint8Array | string) => Promise<IngestAnswer>;
  limits?: Partial<QueueLimits>;
  now?: () => number;
} = {}) {
  const events: string[] = [];
  const queue = createReportQueue({
    store,
    send,
    limits: { minBackoffMs: 60_000, maxBackoffMs: 60_000, ...limits },
    random: () => 0.5,
    ...(now ? { now } : {}),
    events: {
      handedOver: (source, direction) => events.push(`${direction} ${source}`),
      dropped: (source, reason) => events.push(`dropped ${source} ${reason}`),
      sent: (source) => events.push(`sent ${source}`),
    },
  });
  queues.push(queue);
  return { queue, events };
}

const folder = () => {
  const made = mkdtempSync(path.join(tmpdir(), 'hand-off-'));
  folders.push(made);
  return made;
};
const files = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.envelope'));

/** A queue with `ids` waiting (the ingest failed each): the first as it came, the rest behind it. */
async function waitingQueue(ids: number[], options: Parameters<typeof open>[0] = {}) {
  const opened = open(options);
  await opened.queue.start();
  for (const id of ids) await opened.queue.submit('server', envelope(id), { 'user-agent': `ua ${id}` });
  return opened;
}

const handed = (envelopes: HandedEnvelope[]) => envelopes.map((one) => idOf(one.body));

describe('the queue hands over what waits', () => {
  it('each waiting envelope, oldest first, with its facts; taken ones leave the queue and the folder', async () => {
    const dir = folder();
    const { queue, events } = await waitingQueue([1, 2, 3], { store: folderStore(dir) });
    expect(files(dir)).toHaveLength(3);
    const offered: HandedEnvelope[] = [];
    const result = await queue.handOver(
      async (one) => {
        offered.push(one);
        return idOf(one.body) !== 2;
      },
      { concurrency: 1, signal: new AbortController().signal },
    );
    expect(handed(offered)).toEqual([1, 2, 3]);
    expect(offered[0]).toMatchObject({ source: 'server', headers: { 'user-agent': 'ua 1' } });
    expect(typeof offered[0]!.queuedAt).toBe('number');
    expect(result).toEqual({ given: 2, left: 1 });
    expect(queue.stats().envelopes.server).toBe(1);
    expect(files(dir)).toHaveLength(1);
    expect(events.filter((event) => event.startsWith('out'))).toEqual(['out server', 'out server']);
  });

  it('sends nothing more to the ingest once it hands over', async () => {
    let asked = 0;
    const { queue } = await waitingQueue([1], {
      send: async () => {
        asked += 1;
        return failing();
      },
      limits: { minBackoffMs: 1, maxBackoffMs: 1 },
    });
    await queue.handOver(async () => false, { concurrency: 2, signal: new AbortController().signal });
    const before = asked;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(asked).toBe(before);
  });

  it('offers nothing once its time is up; what was not offered stays', async () => {
    const { queue } = await waitingQueue([1, 2, 3]);
    const stop = new AbortController();
    const offered: number[] = [];
    const result = await queue.handOver(
      async (one) => {
        offered.push(idOf(one.body));
        stop.abort();
        return true;
      },
      { concurrency: 1, signal: stop.signal },
    );
    expect(offered).toEqual([1]);
    expect(result).toEqual({ given: 1, left: 2 });
  });

  it('offers each envelope once, however many offer at a time', async () => {
    const { queue } = await waitingQueue([1, 2, 3, 4, 5]);
    const offered: number[] = [];
    await queue.handOver(
      async (one) => {
        offered.push(idOf(one.body));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return false;
      },
      { concurrency: 4, signal: new AbortController().signal },
    );
    expect(offered.sort()).toEqual([1, 2, 3, 4, 5]);
  });

  it('keeps an envelope whose offer failed', async () => {
    const { queue } = await waitingQueue([1]);
    const result = await queue.handOver(
      async () => {
        throw new Error('peer gone');
      },
      { concurrency: 1, signal: new AbortController().signal },
    );
    expect(result).toEqual({ given: 0, left: 1 });
  });
});

describe('the queue hands over what was on its way to the ingest', () => {
  it('once the ingest has answered it, and only if it still waits', async () => {
    let answer: () => void = () => {};
    let asked = 0;
    // The first attempt fails at once; the retry's answer is held back until the hand-off has begun.
    const slow = open({
      send: () => {
        asked += 1;
        if (asked === 1) return failing();
        return new Promise((resolve) => {
          answer = () => resolve({ status: 500, rateLimits: null, retryAfter: null, body: '' });
        });
      },
      limits: { minBackoffMs: 1, maxBackoffMs: 1 },
    });
    await slow.queue.start();
    await slow.queue.submit('server', envelope(9));
    for (let i = 0; i < 100 && asked < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(asked).toBe(2);
    const offered: number[] = [];
    const handing = slow.queue.handOver(
      async (one) => {
        offered.push(idOf(one.body));
        return true;
      },
      { concurrency: 2, signal: new AbortController().signal },
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(offered).toEqual([]);
    answer();
    expect(await handing).toEqual({ given: 1, left: 0 });
    expect(offered).toEqual([9]);
  });
});

describe('the queue takes what a peer hands it', () => {
  const from = (id: number, queuedAt = Date.now()): HandedEnvelope => ({
    source: 'browser',
    body: Buffer.from(envelope(id)),
    headers: { 'user-agent': 'peer ua' },
    queuedAt,
  });

  it('written to its folder before it answers, and sent as its own once the ingest is back', async () => {
    const dir = folder();
    let ingestUp = false;
    const taken: number[] = [];
    const { queue, events } = open({
      store: folderStore(dir),
      send: async (body) => {
        if (!ingestUp) return failing();
        taken.push(idOf(body));
        return { status: 200, rateLimits: null, retryAfter: null, body: '{}' };
      },
      limits: { minBackoffMs: 10, maxBackoffMs: 10 },
    });
    await queue.start();
    expect(await queue.adopt(from(7))).toBe('queued');
    expect(files(dir)).toHaveLength(1);
    expect(events).toEqual(['in browser']);
    ingestUp = true;
    for (let i = 0; i < 100 && taken.length === 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(taken).toEqual([7]);
  });

  it('once: an envelope whose event id already waits is known, not kept twice', async () => {
    const { queue } = open();
    await queue.start();
    expect(await Promise.all([queue.adopt(from(7)), queue.adopt(from(7))])).toEqual(['queued', 'known']);
    expect(await queue.adopt(from(8))).toBe('queued');
    expect(queue.stats().envelopes.browser).toBe(2);
  });

  it('keeps its first queuing time, so the age bound counts from there, never from a later clock', async () => {
    let clock = 1_000_000_000;
    const { queue, events } = open({
      now: () => clock,
      limits: { maxAgeMs: 60_000, minBackoffMs: 1, maxBackoffMs: 1 },
    });
    await queue.start();
    await queue.adopt(from(1, clock - 59_000));
    await queue.adopt(from(2, clock + 3_600_000));
    expect(queue.stats().oldestAgeSeconds).toBe(59);
    clock += 2000;
    await queue.adopt(from(3));
    // The next look at what waits (after the back-off's 1 ms) finds the first past its age.
    for (let i = 0; i < 100 && !events.includes('dropped browser expired'); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(events).toContain('dropped browser expired');
    expect(queue.stats().envelopes.browser).toBe(2);
  });

  it('knows envelopes by event id only: two without one are both kept', async () => {
    const { queue } = open();
    await queue.start();
    const session = (n: number): HandedEnvelope => ({
      source: 'server',
      body: Buffer.from(`{}\n{"type":"session"}\n{"sid":"${n}"}\n`),
      headers: {},
      queuedAt: Date.now(),
    });
    expect([await queue.adopt(session(1)), await queue.adopt(session(2))]).toEqual(['queued', 'queued']);
  });

  it('forgets an event id once its envelope no longer waits: handed on, or never written', async () => {
    const { queue } = open();
    await queue.start();
    expect(await queue.adopt(from(7))).toBe('queued');
    await queue.handOver(async () => true, { concurrency: 1, signal: new AbortController().signal });
    expect(queue.stats().envelopes.browser).toBe(0);
    // (Stopped by the hand-over: a queue that still takes is asked again.)
    const again = open();
    await again.queue.start();
    expect(await again.queue.adopt(from(7))).toBe('queued');
    await again.queue.handOver(async () => true, { concurrency: 1, signal: new AbortController().signal });

    let broken = true;
    const memory = memoryStore();
    const flaky: EnvelopeStore = {
      ...memory,
      put: (facts, body) => (broken ? Promise.reject(new Error('ENOSPC')) : memory.put(facts, body)),
    };
    const third = open({ store: flaky });
    await third.queue.start();
    expect(await third.queue.adopt(from(8))).toBe('full');
    broken = false;
    expect(await third.queue.adopt(from(8))).toBe('queued');
  });

  it('takes nothing past its share, nor once it stops', async () => {
    const { queue } = open({ limits: { maxEnvelopes: 4 } });
    await queue.start();
    expect(await queue.adopt(from(1))).toBe('queued');
    expect(await queue.adopt(from(2))).toBe('queued');
    expect(await queue.adopt(from(3))).toBe('full');
    queue.stop();
    expect(await queue.adopt({ ...from(4), source: 'server' })).toBe('full');
  });
});

/** The stage on a server of its own, taking into `queue`. */
async function stageServer(queue: ReportQueue, accepting = () => true) {
  const stage = handOffStage({ queue, secret: SECRET, dsn: DSN, accepting });
  const server = http.createServer((req, res) => {
    if (!stage(req, res, (req.url ?? '/').split('?')[0]!)) res.writeHead(404).end('next');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const handOffHeaders = (id = 1) => ({
  authorization: `Bearer ${SECRET}`,
  'content-type': 'application/x-sentry-envelope',
  [SOURCE_HEADER]: 'server',
  [QUEUED_AT_HEADER]: String(Date.now()),
  [INGEST_HEADERS_HEADER]: JSON.stringify({ 'user-agent': `ua ${id}` }),
});

/** A hand-off to the stage on `port` that declares `declared` bytes, sends `sent`, and waits. */
function partialHandOff(port: string, declared: number, sent: string | Buffer) {
  const req = http.request({
    host: '127.0.0.1',
    port,
    path: REPORTS_HANDOFF_PATH,
    method: 'POST',
    agent: false,
    headers: { ...handOffHeaders(), 'content-length': String(declared) },
  });
  req.write(sent);
  return req;
}

describe('the stage: only a peer of the deployment hands reports over', () => {
  it('takes an envelope with the secret and says whether it was new', async () => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const first = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: handOffHeaders(),
      body: envelope(1),
    });
    const again = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: handOffHeaders(),
      body: envelope(1),
    });
    expect([first.status, JSON.parse(first.body)]).toEqual([200, { outcome: 'queued' }]);
    expect(first.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect([again.status, JSON.parse(again.body)]).toEqual([200, { outcome: 'known' }]);
    expect(queue.stats().envelopes.server).toBe(1);
  });

  it.each([
    ['no credential', {}, 401, /Bearer <REPORT_HANDOFF_SECRET>/],
    ['another scheme', { authorization: `Basic ${SECRET}` }, 401, /Bearer <REPORT_HANDOFF_SECRET>/],
    ['another secret', { authorization: `Bearer ${'b'.repeat(64)}` }, 403, /not its secret/],
    ['the secret cut short', { authorization: `Bearer ${SECRET.slice(1)}` }, 403, /not its secret/],
  ])('refuses %s, its body unread, nothing taken', async (_, authorization, status, detail) => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const headers: Record<string, string> = { ...handOffHeaders(), ...authorization };
    if (!('authorization' in authorization)) delete headers.authorization;
    // Declares far more than it sends: an answer comes all the same, so the body was never waited for.
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(HANDOFF_MAX_ENVELOPE_BYTES) },
      body: 'x',
    });
    expect(answer.status).toBe(status);
    // The rest of the body is not read: the connection closes instead.
    expect(answer.headers.connection).toBe('close');
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(JSON.parse(answer.body).detail).toMatch(detail);
    if (status === 401) expect(answer.headers['www-authenticate']).toBe('Bearer realm="app-shell peers"');
    expect(answer.body).not.toContain(SECRET.slice(0, 8));
    expect(queue.stats().envelopes.server).toBe(0);
  });

  it('answers only POST', async () => {
    const { queue } = open();
    const base = await stageServer(queue);
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, { headers: handOffHeaders() });
    expect([answer.status, answer.headers.allow]).toEqual([405, 'POST']);
    expect(JSON.parse(answer.body).detail).toMatch(/POST/);
    const other = await rawRequest(base, `${REPORTS_HANDOFF_PATH}/x`, {
      method: 'POST',
      headers: handOffHeaders(),
    });
    expect(other.body).toBe('next');
  });

  it('refuses while this instance stops, so the giver tries another peer', async () => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue, () => false);
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: handOffHeaders(),
      body: envelope(1),
    });
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).detail).toMatch(/stopping.*another peer/);
    expect(queue.stats().envelopes.server).toBe(0);
  });

  it('refuses a body that is not an envelope (415)', async () => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: { ...handOffHeaders(), 'content-type': 'application/json' },
      body: envelope(1),
    });
    expect(answer.status).toBe(415);
    expect(JSON.parse(answer.body).detail).toContain(ENVELOPE_TYPE);
    expect(queue.stats().envelopes.server).toBe(0);
  });

  it.each([
    ['no ingest headers', { [INGEST_HEADERS_HEADER]: undefined }],
    [
      'ingest headers of 2,048 characters',
      { [INGEST_HEADERS_HEADER]: JSON.stringify({ a: 'x'.repeat(2040) }) },
    ],
    ['a queuing time of 15 digits', { [QUEUED_AT_HEADER]: '100000000000000' }],
    ['a browser’s source', { [SOURCE_HEADER]: 'browser' }],
  ])('takes an envelope with %s', async (_, changed) => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const headers: Record<string, string | undefined> = { ...handOffHeaders(), ...changed };
    for (const name of Object.keys(headers)) if (headers[name] === undefined) delete headers[name];
    expect(JSON.stringify({ a: 'x'.repeat(2040) })).toHaveLength(2048);
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: headers as Record<string, string>,
      body: envelope(1),
    });
    expect(answer.status).toBe(200);
  });

  it.each([
    ['an unknown source', { [SOURCE_HEADER]: 'stranger' }],
    ['a queuing time of 16 digits', { [QUEUED_AT_HEADER]: '1000000000000000' }],
    ['a negative queuing time', { [QUEUED_AT_HEADER]: '-1' }],
    ['ingest headers that are a string', { [INGEST_HEADERS_HEADER]: '"a"' }],
    ['ingest headers with one value not a string', { [INGEST_HEADERS_HEADER]: '{"a":"x","b":1}' }],
    ['ingest headers that are null', { [INGEST_HEADERS_HEADER]: 'null' }],
    ['no queuing time', { [QUEUED_AT_HEADER]: '' }],
    ['a queuing time that is no time', { [QUEUED_AT_HEADER]: '1e400' }],
    ['ingest headers that are not an object of strings', { [INGEST_HEADERS_HEADER]: '{"a":1}' }],
    ['ingest headers that are a list', { [INGEST_HEADERS_HEADER]: '["a"]' }],
    ['ingest headers that are not JSON', { [INGEST_HEADERS_HEADER]: '{' }],
    [
      'ingest headers past 2,048 characters',
      { [INGEST_HEADERS_HEADER]: JSON.stringify({ a: 'x'.repeat(2048) }) },
    ],
  ])('refuses %s (400)', async (_, changed) => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: { ...handOffHeaders(), ...changed },
      body: envelope(1),
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body).detail).toContain(SOURCE_HEADER);
    expect(queue.stats().envelopes.server).toBe(0);
  });

  describe('checks the body as the tunnel checks an envelope, before the queue takes it', () => {
    /** A stage whose queue notes every envelope it is asked to take. */
    async function watchedStage() {
      const { queue } = open();
      await queue.start();
      const adopted: HandedEnvelope[] = [];
      const watched: ReportQueue = {
        ...queue,
        adopt: (one) => {
          adopted.push(one);
          return queue.adopt(one);
        },
      };
      return { base: await stageServer(watched), adopted, queue };
    }
    const handOver = (base: string, body: string, source = 'server') =>
      rawRequest(base, REPORTS_HANDOFF_PATH, {
        method: 'POST',
        headers: { ...handOffHeaders(), [SOURCE_HEADER]: source },
        body,
      });

    it.each([
      ['an empty body', ''],
      ['a body that is not an envelope', 'not an envelope at all'],
      ['a header line that is not JSON', `{"event_id":\n{"type":"event"}\n{"message":"report 1"}\n`],
      ['a header and no item', `{"dsn":"${DSN}"}\n`],
    ])('refuses %s (400, problem details), and the queue takes nothing', async (_, body) => {
      for (const source of ['server', 'browser']) {
        const { base, adopted, queue } = await watchedStage();
        const answer = await handOver(base, body, source);
        expect([source, answer.status]).toEqual([source, 400]);
        expect(answer.headers['content-type']).toBe('application/problem+json');
        expect(JSON.parse(answer.body).detail).toMatch(/envelope/);
        expect(adopted).toEqual([]);
        expect(queue.stats().envelopes[source as 'server' | 'browser']).toBe(0);
      }
    });

    it('refuses an envelope for another DSN (403: the giver tries a peer that shares its own)', async () => {
      const { base, adopted } = await watchedStage();
      const foreign = envelope(1).replace(DSN, 'http://other@127.0.0.1:9/2');
      for (const source of ['server', 'browser']) {
        const answer = await handOver(base, foreign, source);
        expect(answer.status).toBe(403);
        expect(JSON.parse(answer.body).detail).toMatch(/another DSN .* a peer that shares it/);
      }
      expect(adopted).toEqual([]);
    });

    it('refuses what Sentry’s ingest would not keep (an event id it cannot parse), from either source, saying why', async () => {
      const { base, adopted } = await watchedStage();
      const badId = envelope(1).replace(/"event_id":"[0-9a-f]+"/, '"event_id":"x"');
      for (const source of ['server', 'browser']) {
        const answer = await handOver(base, badId, source);
        expect([source, answer.status]).toEqual([source, 400]);
        expect(JSON.parse(answer.body).detail).toMatch(/breaks a rule of Sentry's ingest/);
      }
      expect(adopted).toEqual([]);
    });

    it('refuses from a browser what the tunnel would not forward: two items in one envelope', async () => {
      const { base, adopted } = await watchedStage();
      const two = `${envelope(1)}{"type":"event"}\n{"message":"report 2"}\n`;
      const browser = await handOver(base, two, 'browser');
      expect(browser.status).toBe(400);
      expect(JSON.parse(browser.body).detail).toMatch(/a browser's holds one event/);
      expect(adopted).toEqual([]);
      // The server's own SDK writes several items to an envelope: taken from the server's queue.
      expect((await handOver(base, two, 'server')).status).toBe(200);
    });

    it('still takes a real envelope from either source, a browser’s as the tunnel wrote it anew', async () => {
      const { base, adopted } = await watchedStage();
      expect((await handOver(base, envelope(1), 'server')).status).toBe(200);
      expect((await handOver(base, envelope(2), 'browser')).status).toBe(200);
      expect(adopted.map(({ source, body }) => [source, Buffer.from(body).toString()])).toEqual([
        ['server', envelope(1)],
        // Only the header fields the tunnel forwards, and no newline after the payload.
        [
          'browser',
          `{"event_id":"${eventIdOf(2)}","dsn":"${DSN}"}\n{"type":"event"}\n{"message":"report 2"}`,
        ],
      ]);
    });
  });

  it(`refuses an envelope over ${HANDOFF_MAX_ENVELOPE_BYTES} bytes (413), declared or sent`, async () => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const big = 'x'.repeat(HANDOFF_MAX_ENVELOPE_BYTES + 1);
    const declared = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: handOffHeaders(),
      body: big,
    });
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe('close');
    expect(JSON.parse(declared.body).detail).toContain(String(HANDOFF_MAX_ENVELOPE_BYTES));
    // Padded inside its payload: an envelope of exactly the bound.
    const padded = (pad: string) => envelope(1).replace('"report 1"', `"report 1","pad":"${pad}"`);
    const exact = padded(' '.repeat(HANDOFF_MAX_ENVELOPE_BYTES - Buffer.byteLength(padded(''))));
    expect(Buffer.byteLength(exact)).toBe(HANDOFF_MAX_ENVELOPE_BYTES);
    const atBound = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: handOffHeaders(),
      body: exact,
    });
    expect(atBound.status).toBe(200);
  });

  it('refuses past the bytes all hand-offs may hold at once (503), and gives them back after each', async () => {
    const { queue } = open();
    await queue.start();
    const size = Buffer.byteLength(envelope(1));
    const stage = handOffStage({
      queue,
      secret: SECRET,
      dsn: DSN,
      accepting: () => true,
      budget: createUploadBudget(size),
    });
    const server = http.createServer((req, res) => void stage(req, res, req.url!));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const ask = (body: string) =>
      rawRequest(base, REPORTS_HANDOFF_PATH, { method: 'POST', headers: handOffHeaders(), body });
    expect((await ask(envelope(1))).status).toBe(200);
    expect((await ask(envelope(2))).status).toBe(200);
    const busy = await ask(`${envelope(3)} `);
    expect(busy.status).toBe(503);
    expect(JSON.parse(busy.body).detail).toMatch(/another peer/);
  });

  it('holds 16 MiB of hand-offs being read at once by default (docs/report-queue.md): a body that fits beside them is taken, one byte more is refused', async () => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const { port } = new URL(base);
    // Sixteen envelopes of 1 MiB, each one byte short: 16 MiB - 16 bytes held while they wait for it.
    const held = Array.from({ length: 16 }, () =>
      partialHandOff(port, HANDOFF_MAX_ENVELOPE_BYTES, Buffer.alloc(HANDOFF_MAX_ENVELOPE_BYTES - 1, 'x')).on(
        'error',
        () => {},
      ),
    );
    try {
      const ask = (body: string) =>
        rawRequest(base, REPORTS_HANDOFF_PATH, { method: 'POST', headers: handOffHeaders(), body });
      // Until the stage has read all sixteen, 17 bytes still fit; then never again while they wait.
      const until = Date.now() + 5000;
      let answer = await ask('y'.repeat(17));
      while (answer.status !== 503 && Date.now() < until) answer = await ask('y'.repeat(17));
      expect(answer.status).toBe(503);
      expect(JSON.parse(answer.body).detail).toMatch(/Too many hand-offs at once/);
      // 16 bytes fit exactly: read and taken, the smallest envelope (a header, one item, no payload).
      const smallest = '{}\n{"type":"a"}\n';
      expect(smallest).toHaveLength(16);
      expect((await ask(smallest)).status).toBe(200);
    } finally {
      for (const req of held) req.destroy();
    }
  });

  it('refuses an envelope that comes too slowly (408)', async () => {
    const { queue } = open();
    await queue.start();
    const base = await stageServer(queue);
    const { port } = new URL(base);
    const status = await new Promise<number | undefined>((resolve, reject) => {
      // Ten of the hundred bytes, then nothing.
      const req = partialHandOff(port, 100, 'x'.repeat(10));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          expect(JSON.parse(Buffer.concat(chunks).toString()).detail).toMatch(/too slowly/);
          resolve(res.statusCode);
        });
      });
      req.on('error', reject);
    });
    expect(status).toBe(408);
  });

  it('answers 500 when its queue fails, never leaving the giver waiting', async () => {
    const { queue } = open();
    const broken = { ...queue, adopt: () => Promise.reject(new Error('disk gone')) } as ReportQueue;
    const base = await stageServer(broken);
    const answer = await rawRequest(base, REPORTS_HANDOFF_PATH, {
      method: 'POST',
      headers: handOffHeaders(),
      body: envelope(1),
    });
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body).detail).toMatch(/could not be taken/);
  });

  it('says so when it has no room (503): the giver tries another peer', async () => {
    const { queue } = open({ limits: { maxEnvelopes: 2 } });
    await queue.start();
    const base = await stageServer(queue);
    const ask = (id: number) =>
      rawRequest(base, REPORTS_HANDOFF_PATH, {
        method: 'POST',
        headers: handOffHeaders(id),
        body: envelope(id),
      });
    expect((await ask(1)).status).toBe(200);
    const full = await ask(2);
    expect(full.status).toBe(503);
    expect(JSON.parse(full.body).detail).toMatch(/no room.*another peer/);
  });
});

describe('handing over at a stop', () => {
  /** A peer taking into a queue of its own, or answering `status` to everything. */
  async function peer(status?: number) {
    const { queue } = open();
    await queue.start();
    let asked = 0;
    const stage = handOffStage({ queue, secret: SECRET, dsn: DSN, accepting: () => true });
    const server = http.createServer((req, res) => {
      asked += 1;
      if (status) return void req.resume().on('end', () => res.writeHead(status).end());
      stage(req, res, req.url!);
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { queue, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, asked: () => asked };
  }

  it('gives every waiting envelope to a peer, moving on from one that refuses', async () => {
    const { queue } = await waitingQueue([1, 2, 3, 4, 5, 6]);
    const refusing = await peer(503);
    const taking = await peer();
    const result = await handOffReports({
      queue,
      peers: () => [refusing.base, taking.base],
      secret: SECRET,
      timeoutMs: 5000,
      random: () => 0,
    });
    expect(result).toEqual({ given: 6, left: 0 });
    expect(taking.queue.stats().envelopes.server).toBe(6);
    // Asked once, then left out: each of the four workers learnt it at its first envelope at most.
    expect(refusing.asked()).toBeLessThanOrEqual(4);
  });

  it.each([
    [200, 'takes each'],
    [204, 'takes each'],
    [300, 'refuses: left out'],
    [503, 'refuses: left out'],
    [400, 'finds the envelope unwanted: kept, the peer asked for the next'],
    [413, 'finds the envelope unwanted: kept, the peer asked for the next'],
  ])('a peer answering %i %s', async (status, what) => {
    const { queue } = await waitingQueue([1, 2, 3, 4, 5, 6]);
    const answering = await peer(status);
    const result = await handOffReports({
      queue,
      peers: () => [answering.base],
      secret: SECRET,
      timeoutMs: 5000,
    });
    // A refusing peer is asked by each worker at most once before it is known to refuse: the
    // rest find it left out. Any other is asked for each envelope.
    if (what.startsWith('refuses')) expect(answering.asked()).toBeLessThanOrEqual(HANDOFF_CONCURRENCY);
    else expect(answering.asked()).toBe(6);
    expect(result).toEqual(status < 300 ? { given: 6, left: 0 } : { given: 0, left: 6 });
  });

  it('asks the peers in a random order, so that a fleet’s stopping instances spread', async () => {
    const first = await peer();
    const second = await peer();
    const order = (draws: number[]) => {
      let at = 0;
      return () => draws[at++]!;
    };
    const one = await waitingQueue([1]);
    await handOffReports({
      queue: one.queue,
      peers: () => [first.base, second.base],
      secret: SECRET,
      timeoutMs: 5000,
      random: order([0.9, 0.1]),
    });
    expect([first.asked(), second.asked()]).toEqual([0, 1]);
    const two = await waitingQueue([2]);
    await handOffReports({
      queue: two.queue,
      peers: () => [first.base, second.base],
      secret: SECRET,
      timeoutMs: 5000,
      random: order([0.1, 0.9]),
    });
    expect([first.asked(), second.asked()]).toEqual([1, 1]);
  });

  it('ends within its time when a peer never answers; what was not taken stays', async () => {
    const { queue } = await waitingQueue([1, 2]);
    const silent = http.createServer(() => {});
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const started = Date.now();
    const result = await handOffReports({
      queue,
      peers: () => [`http://127.0.0.1:${(silent.address() as AddressInfo).port}`],
      secret: SECRET,
      timeoutMs: 200,
    });
    expect(result).toEqual({ given: 0, left: 2 });
    // Not a timing promise: a hang would take the test's own 5 s.
    expect(Date.now() - started).toBeLessThan(4000);
    silent.closeAllConnections();
  });

  it('gives one peer 3 s to answer one envelope (docs/report-queue.md), within the whole hand-off’s time', async () => {
    const { queue } = await waitingQueue([1]);
    const silent = http.createServer(() => {});
    servers.push(silent);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    // AbortSignal.timeout runs on a clock Jest cannot move: the bound is read where it is set.
    const timeout = jest.spyOn(AbortSignal, 'timeout');
    try {
      await handOffReports({
        queue,
        peers: () => [`http://127.0.0.1:${(silent.address() as AddressInfo).port}`],
        secret: SECRET,
        timeoutMs: 100,
      });
      // The whole hand-off's time, then the one offer's.
      expect(timeout.mock.calls).toEqual([[100], [3000]]);
    } finally {
      timeout.mockRestore();
      silent.closeAllConnections();
    }
  });

  it('says what it gave and what it left: an info line when all went, a warning and a count by source when some stay', async () => {
    const lines: string[] = [];
    // Info lines go to stdout, warnings to stderr.
    const capture = (chunk: unknown) => {
      lines.push(String(chunk));
      return true;
    };
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
    const counted: string[] = [];
    recorderSlot.write(
      recorderWith({
        reportQueue: (event, labels, amount) => counted.push(`${event} ${labels.source} ${amount}`),
      }),
    );
    try {
      const taking = await peer();
      const all = await waitingQueue([1]);
      await handOffReports({ queue: all.queue, peers: () => [taking.base], secret: SECRET, timeoutMs: 5000 });
      const some = open();
      await some.queue.start();
      await some.queue.submit('browser', envelope(2));
      await some.queue.submit('browser', envelope(3));
      await handOffReports({ queue: some.queue, peers: () => [], secret: SECRET, timeoutMs: 5000 });
    } finally {
      stdout.mockRestore();
      stderr.mockRestore();
      recorderSlot.clear();
    }
    const logged = lines
      .filter((line) => line.includes('reporting.queue_handed_over'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(logged).toEqual([
      expect.objectContaining({ level: 'info', given: 1, left: 0, peers: 1, refusedBy: 0 }),
      expect.objectContaining({ level: 'warn', given: 0, left: 2, peers: 0, refusedBy: 0 }),
    ]);
    expect(counted.filter((event) => event.startsWith('left_at_exit'))).toEqual(['left_at_exit browser 2']);
  });

  it('keeps what no peer took, and an envelope one peer found unwanted does not turn the peer away', async () => {
    const { queue } = await waitingQueue([1, 2]);
    const unwanted = await peer(413);
    const result = await handOffReports({
      queue,
      peers: () => [unwanted.base],
      secret: SECRET,
      timeoutMs: 5000,
    });
    expect(result).toEqual({ given: 0, left: 2 });
    expect(unwanted.asked()).toBe(2);
  });

  it('with no peer, keeps them all, without reading one', async () => {
    let reads = 0;
    const memory = memoryStore();
    const counted: EnvelopeStore = {
      ...memory,
      read: (entry) => {
        reads += 1;
        return memory.read(entry);
      },
    };
    const { queue } = await waitingQueue([1, 2], { store: counted });
    expect(await handOffReports({ queue, peers: () => [], secret: SECRET, timeoutMs: 5000 })).toEqual({
      given: 0,
      left: 2,
    });
    expect(reads).toBe(0);
  });

  it('with nothing waiting, asks no peer and says nothing', async () => {
    const { queue } = open();
    await queue.start();
    const taking = await peer();
    const lines: string[] = [];
    const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    expect(
      await handOffReports({ queue, peers: () => [taking.base], secret: SECRET, timeoutMs: 5000 }),
    ).toEqual({
      given: 0,
      left: 0,
    });
    stdout.mockRestore();
    expect(taking.asked()).toBe(0);
    expect(lines.filter((line) => line.includes('reporting.queue_handed_over'))).toEqual([]);
  });

  it('a peer given the wrong secret takes nothing', async () => {
    const { queue } = await waitingQueue([1]);
    const taking = await peer();
    const result = await handOffReports({
      queue,
      peers: () => [taking.base],
      secret: 'z'.repeat(64),
      timeoutMs: 5000,
    });
    expect(result).toEqual({ given: 0, left: 1 });
    expect(taking.queue.stats().envelopes.server).toBe(0);
  });
});

describe('the start’s warning that the hand-off is off', () => {
  /** The settings a server reads from `env`, beside a DSN, a queue folder and peers. */
  const read = (env: Record<string, string | undefined> = {}) =>
    readSettings(
      {
        SENTRY_DSN: DSN,
        REPORT_QUEUE_DIR: '/var/lib/app-shell/reports',
        FLEET_PEERS: 'dns:app-shell-peers:3000',
        ...env,
      },
      { dsnAtBuild: null },
    );

  it('says, with peers and a queue folder but no secret, that waiting reports will go with the pod', () => {
    const warning = handOffWarning(read());
    expect(warning?.event).toBe('reporting.handoff_off');
    expect(warning?.fields.message).toMatch(/REPORT_HANDOFF_SECRET is not.*go with its pod/);
  });

  it.each([
    ['with the secret', { REPORT_HANDOFF_SECRET: randomBytes(32).toString('hex') }],
    ['without peers (nobody to hand them to)', { FLEET_PEERS: undefined }],
    ['without a queue folder (they wait in memory, lost at any stop)', { REPORT_QUEUE_DIR: undefined }],
    ['without a DSN (nothing queues)', { SENTRY_DSN: undefined }],
  ])('says nothing %s', (_, changed) => {
    expect(handOffWarning(read(changed))).toBeNull();
  });
});
