// The tunnel through the server's report queue (lib/reporting/queue/), as the server runs it: the
// ingest's answer passed back, 202 while the ingest is away, 503 "try later" when the browsers'
// share is full.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IngestAnswer } from '@lib/reporting/ingest/ingest-messages';
import { createReportQueue, type ReportQueue } from '@lib/reporting/queue/queue';
import { memoryStore } from '@lib/reporting/queue/store';
import { createTunnel } from '@lib/reporting/tunnel';
import { recorderSlot } from '@lib/metrics/record';
import { recorderWith } from '../../../../support/recorder';

const DSN = 'http://publickey@127.0.0.1:9/7';
const PATH = '/t3st';
const envelope = (n: number) =>
  `{"event_id":"${String(n).padStart(32, '0')}","dsn":"${DSN}"}\n{"type":"event"}\n{"message":"hello ${n}"}\n`;

let answer: () => IngestAnswer | Promise<IngestAnswer>;
let sent: { body: string; headers: Record<string, string> }[];
let queue: ReportQueue;
let app: Server;
let base: string;

beforeEach(async () => {
  sent = [];
  answer = () => ({ status: 200, rateLimits: null, retryAfter: null, body: '{"id":"x"}' });
  queue = createReportQueue({
    store: memoryStore(),
    send: async (body, headers) => {
      sent.push({ body: Buffer.from(body).toString(), headers });
      return answer();
    },
    // Two envelopes for each source; back-off long enough that nothing is retried during a test.
    limits: { maxEnvelopes: 4, minBackoffMs: 60_000 },
  });
  const tunnel = createTunnel({ dsn: DSN, path: PATH, queue });
  app = createServer((req, res) => void tunnel.handle(req, res));
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(async () => {
  queue.stop();
  app.closeAllConnections();
  await new Promise((resolve) => app.close(resolve));
  jest.restoreAllMocks();
});

const post = (body: string) =>
  fetch(`${base}${PATH}`, { method: 'POST', body, headers: { 'User-Agent': 'Test browser' } });

describe('the tunnel with the report queue', () => {
  it('passes back what the ingest answered, with the user agent sent along', async () => {
    answer = () => ({
      status: 429,
      rateLimits: '60:error:organization',
      retryAfter: '60',
      body: 'slow down',
    });
    const res = await post(envelope(1));
    expect(res.status).toBe(429);
    expect(res.headers.get('x-sentry-rate-limits')).toBe('60:error:organization');
    expect(res.headers.get('retry-after')).toBe('60');
    expect(await res.text()).toBe('slow down');
    expect(sent[0]!.headers['user-agent']).toBe('Test browser');
  });

  it('answers 202 while the ingest is away, and the envelope waits', async () => {
    answer = () => ({ status: 500, rateLimits: null, retryAfter: null, body: '' });
    expect((await post(envelope(1))).status).toBe(202);
    // Down: the next one waits behind it without asking the ingest.
    expect((await post(envelope(2))).status).toBe(202);
    expect(sent).toHaveLength(1);
    expect(queue.stats().envelopes.browser).toBe(2);
  });

  it('answers 503 with Retry-After once the browsers’ share is full, and keeps what it held', async () => {
    answer = () => Promise.reject(Object.assign(new Error('refused'), { name: 'Error' }));
    const statuses = [];
    for (let n = 1; n <= 4; n += 1) statuses.push((await post(envelope(n))).status);
    expect(statuses).toEqual([202, 202, 503, 503]);
    const full = await post(envelope(5));
    expect(full.headers.get('retry-after')).toBe('60');
    expect(await full.text()).toMatch(/try again later/i);
    expect(queue.stats().envelopes).toEqual({ server: 0, browser: 2 });
  });

  it('says in words that a waiting envelope was accepted, and counts it as queued', async () => {
    const counted: string[] = [];
    recorderSlot.write(recorderWith({ tunnel: (outcome, reason) => counted.push(`${outcome} ${reason}`) }));
    answer = () => ({ status: 500, rateLimits: null, retryAfter: null, body: '' });
    const text = await (await post(envelope(1))).text();
    recorderSlot.clear();
    expect(counted).toEqual(['queued ingest_unavailable']);
    expect(text).toBe('Accepted; it will reach the reporting service when that is back.');
  });

  it('passes back at most 512 characters of what the ingest said', async () => {
    answer = () => ({ status: 400, rateLimits: null, retryAfter: null, body: 'y'.repeat(2000) });
    expect(await (await post(envelope(1))).text()).toBe('y'.repeat(512));
  });

  it('answers 500, logs and counts it, when something inside fails', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    queue.submit = () => Promise.reject(new Error('queue broke'));
    const counted: string[] = [];
    recorderSlot.write(recorderWith({ tunnel: (outcome, reason) => counted.push(`${outcome} ${reason}`) }));
    const res = await post(envelope(1));
    recorderSlot.clear();
    expect(counted).toEqual(['refused internal_error']);
    expect([res.status, await res.text()]).toEqual([500, 'Tunnel error.']);
    const line = stderr.mock.calls
      .map(([chunk]) => JSON.parse(String(chunk)) as { event: string; error?: { message: string } })
      .find(({ event }) => event === 'reporting.tunnel_failed');
    expect(line?.error?.message).toBe('queue broke');
  });
});
