import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { decideLive, decideReady } from '../../../../lib/management/decide';
import { heartbeatIn } from '../../../../lib/management/heartbeat';
import { startManagement, type ManagementOptions } from '../../../../lib/management/listener';
import { managementServer, scraper, type MetricsText } from '../../../../lib/management/worker';

const LIMITS = { wedgeMs: 10_000, loopDelay: { warn: 200, fail: 1000 } };
const IDENTITY = { version: '1.2.3', releaseId: 'abc' };
const NOW = 1_700_000_000_000;
const beat = (over: Partial<Parameters<ReturnType<typeof heartbeatIn>['write']>[0]> = {}) => ({
  at: NOW - 50,
  loopDelayMs: 20,
  phase: 'ready' as const,
  status: 'pass' as const,
  ...over,
});

describe('the heartbeat in shared memory', () => {
  it('reads back what was written, through another view of the same memory', () => {
    const writer = heartbeatIn();
    const reader = heartbeatIn(writer.buffer);
    expect(reader.read()).toBeNull();
    writer.write(beat({ phase: 'draining', status: 'warn', loopDelayMs: 312.5 }));
    expect(reader.read()).toEqual({ at: NOW - 50, loopDelayMs: 312.5, phase: 'draining', status: 'warn' });
    writer.write(beat({ status: null }));
    expect(reader.read()?.status).toBeNull();
  });
});

describe('/livez', () => {
  it('passes while the main loop beats within the wedge limit, however busy it is', () => {
    expect(decideLive(beat({ at: NOW - 9_999, loopDelayMs: 5000 }), NOW, LIMITS, IDENTITY).status).toBe(
      'pass',
    );
  });

  it('fails once the heartbeat is older than the wedge limit, or there is none', () => {
    const wedged = decideLive(beat({ at: NOW - 10_001 }), NOW, LIMITS, IDENTITY);
    expect(wedged.status).toBe('fail');
    expect(wedged.checks['mainloop:heartbeatAge']).toEqual([
      expect.objectContaining({ observedValue: 10_001, observedUnit: 'ms', status: 'fail' }),
    ]);
    expect(decideLive(null, NOW, LIMITS, IDENTITY).status).toBe('fail');
  });
});

describe('/readyz', () => {
  it('passes for a ready process whose readiness passed, with a fresh heartbeat', () => {
    const report = decideReady(beat(), NOW, LIMITS, IDENTITY);
    expect(report).toEqual(expect.objectContaining({ status: 'pass', version: '1.2.3', releaseId: 'abc' }));
  });

  it.each([
    ['starting', beat({ phase: 'starting' })],
    ['draining', beat({ phase: 'draining' })],
    ['readiness failed', beat({ status: 'fail' })],
    ['not decided yet', beat({ status: null })],
    ['event-loop delay at the fail threshold', beat({ loopDelayMs: 1000 })],
    ['heartbeat older than the delay fail threshold', beat({ at: NOW - 1001 })],
  ])('fails when %s', (_why, state) => {
    expect(decideReady(state, NOW, LIMITS, IDENTITY).status).toBe('fail');
  });

  it('warns as readiness does: on a warning, or a delay past the warn threshold', () => {
    expect(decideReady(beat({ status: 'warn' }), NOW, LIMITS, IDENTITY).status).toBe('warn');
    expect(decideReady(beat({ loopDelayMs: 250 }), NOW, LIMITS, IDENTITY).status).toBe('warn');
  });
});

describe('the management server', () => {
  it('answers /livez and /readyz from the heartbeat, with health+json, and nothing else', async () => {
    const heartbeat = heartbeatIn();
    heartbeat.write({ at: Date.now(), loopDelayMs: 3, phase: 'draining', status: 'pass' });
    const server = managementServer({
      buffer: heartbeat.buffer,
      host: '127.0.0.1',
      port: 0,
      limits: LIMITS,
      identity: IDENTITY,
      metrics: false,
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const live = await fetch(`${base}/livez?probe=1`);
      expect(live.status).toBe(200);
      expect(live.headers.get('content-type')).toBe('application/health+json; charset=utf-8');
      expect(live.headers.get('cache-control')).toBe('no-store');
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(
        ((await ready.json()) as { checks: Record<string, unknown> }).checks['server:lifecycle'],
      ).toEqual([expect.objectContaining({ observedValue: 'draining', status: 'fail' })]);
      expect((await fetch(`${base}/metrics`)).status).toBe(404);
      expect((await fetch(`${base}/livez`, { method: 'POST' })).status).toBe(405);
    } finally {
      server.close();
    }
  });
});

describe('/metrics on the management server', () => {
  const TEXT: MetricsText = { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: 'up 1\n' };

  async function serve(scrape: (() => Promise<MetricsText | null>) | null) {
    const heartbeat = heartbeatIn();
    heartbeat.write({ at: Date.now(), loopDelayMs: 3, phase: 'ready', status: 'pass' });
    const server = managementServer(
      {
        buffer: heartbeat.buffer,
        host: '127.0.0.1',
        port: 0,
        limits: LIMITS,
        identity: IDENTITY,
        metrics: true,
      },
      scrape,
    );
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
  }

  it("answers the main thread's text with its content type, HEAD without a body, and refuses POST", async () => {
    const { server, base } = await serve(() => Promise.resolve(TEXT));
    try {
      const answer = await fetch(`${base}/metrics`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toBe(TEXT.contentType);
      expect(await answer.text()).toBe(TEXT.text);
      const head = await fetch(`${base}/metrics`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(405);
    } finally {
      server.close();
    }
  });

  it('answers 503 when the main thread has not answered, and the probes meanwhile', async () => {
    let answer!: (metrics: MetricsText | null) => void;
    const { server, base } = await serve(() => new Promise((resolve) => (answer = resolve)));
    try {
      const scrape = fetch(`${base}/metrics`);
      // The scrape waits; a probe on the same listener does not wait for it.
      expect((await fetch(`${base}/livez`)).status).toBe(200);
      answer(null);
      const refused = await scrape;
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('5');
    } finally {
      server.close();
    }
  });
});

describe('the scraper that asks the main thread', () => {
  it('asks once for scrapes that come while it waits, and reuses a fresh answer', async () => {
    const ask = jest.fn(
      () =>
        new Promise<MetricsText>((resolve) => setTimeout(() => resolve({ contentType: 't', text: 'x' }), 20)),
    );
    const scrape = scraper(ask, { timeoutMs: 1000, reuseMs: 60_000 });
    const answers = await Promise.all([scrape(), scrape(), scrape()]);
    expect(answers).toEqual([
      { contentType: 't', text: 'x' },
      { contentType: 't', text: 'x' },
      { contentType: 't', text: 'x' },
    ]);
    expect(ask).toHaveBeenCalledTimes(1);
    await scrape();
    expect(ask).toHaveBeenCalledTimes(1);
  });

  it('asks again once the answer is older than the reuse time', async () => {
    const ask = jest.fn(() => Promise.resolve({ contentType: 't', text: 'x' }));
    const scrape = scraper(ask, { timeoutMs: 1000, reuseMs: 0 });
    await scrape();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await scrape();
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it('gives up after its timeout, and on a failed question, with null', async () => {
    expect(await scraper(() => new Promise(() => {}), { timeoutMs: 20, reuseMs: 0 })()).toBeNull();
    expect(
      await scraper(() => Promise.reject(new Error('gone')), { timeoutMs: 1000, reuseMs: 0 })(),
    ).toBeNull();
  });
});

describe('the worker that serves them', () => {
  const FIXTURES = path.join(__dirname, '__fixtures__');
  const options = (workerFile: string, giveUp: () => void): ManagementOptions => ({
    host: '127.0.0.1',
    port: 0,
    limits: LIMITS,
    identity: IDENTITY,
    phase: () => 'ready',
    loopDelayMs: () => 1,
    readiness: () => Promise.resolve('pass'),
    workerFile,
    giveUp,
  });

  let stderr: jest.SpyInstance;
  beforeEach(() => {
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  });
  afterEach(() => jest.restoreAllMocks());

  it('is restarted when it dies, and given up on, with a log line, when it keeps dying', async () => {
    let gaveUp!: () => void;
    const givenUp = new Promise<void>((resolve) => (gaveUp = resolve));
    const management = await startManagement(
      options(path.join(FIXTURES, 'dies-after-listening.cjs'), gaveUp),
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      givenUp,
      new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('never given up on')), 5000))),
    ]).finally(() => clearTimeout(timer));
    await management.stop();
    const events = stderr.mock.calls.map(([line]) => (JSON.parse(String(line)) as { event: string }).event);
    expect(events.filter((event) => event === 'management.worker_restarted')).toHaveLength(3);
    expect(events).toContain('management.worker_given_up');
  });

  it('stops with the listener, without a restart', async () => {
    const giveUp = jest.fn();
    const management = await startManagement(options(path.join(FIXTURES, 'listens.cjs'), giveUp));
    await management.stop();
    expect(giveUp).not.toHaveBeenCalled();
    expect(String(stderr.mock.calls)).not.toContain('management.worker_restarted');
  });
});
