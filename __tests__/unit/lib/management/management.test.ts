import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { until } from '../../../support/until';
import { decideLive, decideReady } from '@lib/management/decide';
import { heartbeatIn } from '@lib/management/heartbeat';
import {
  decider,
  isCrashLoop,
  listenFailure,
  MAX_RESTARTS,
  RESTART_WINDOW_MS,
  scrapeAnswer,
  startManagement,
  type ManagementOptions,
} from '@lib/management/listener';
import {
  type ManagementMessage,
  type ManagementWorkerData,
  managementServer,
  scraper,
  serveFromWorker,
  type MetricsText,
} from '@lib/management/worker';
import { MessageChannel } from 'node:worker_threads';
import http from 'node:http';

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

describe('the heartbeat read while it is written', () => {
  it('is never read half-written: a writer stopped mid-write reads as no heartbeat', () => {
    const writer = heartbeatIn();
    writer.write(beat());
    // What the writer's first step leaves, before its second: the sequence made odd.
    Atomics.add(new Int32Array(writer.buffer, 0, 1), 0, 1);
    expect(heartbeatIn(writer.buffer).read()).toBeNull();
  });

  it('reads every status and phase back, and an index it does not know as the safe one', () => {
    const writer = heartbeatIn();
    for (const status of ['pass', 'warn', 'fail'] as const) {
      writer.write(beat({ status }));
      expect(writer.read()?.status).toBe(status);
    }
    for (const phase of ['starting', 'ready', 'draining', 'closed'] as const) {
      writer.write(beat({ phase }));
      expect(writer.read()?.phase).toBe(phase);
    }
    // Memory written by a newer build with more phases and statuses than this one knows.
    const values = new Float64Array(writer.buffer, 8, 4);
    values[2] = 9;
    values[3] = 9;
    expect(writer.read()).toMatchObject({ phase: 'starting', status: 'fail' });
  });
});

describe('/livez', () => {
  it('answers in the format of /api/health/live', () => {
    expect(decideLive(beat({ at: NOW - 10_000 }), NOW, LIMITS, IDENTITY)).toStrictEqual({
      status: 'pass',
      version: '1.2.3',
      releaseId: 'abc',
      description: 'liveness (management)',
      checks: {
        'mainloop:heartbeatAge': [
          {
            componentType: 'system',
            observedValue: 10_000,
            observedUnit: 'ms',
            status: 'pass',
            time: new Date(NOW).toISOString(),
          },
        ],
      },
    });
    expect(decideLive(null, NOW, LIMITS, IDENTITY).checks['mainloop:heartbeatAge']).toStrictEqual([
      {
        componentType: 'system',
        output: 'No heartbeat yet',
        status: 'fail',
        time: new Date(NOW).toISOString(),
      },
    ]);
  });

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

  it('answers in the format of /api/health/ready', () => {
    const time = new Date(NOW).toISOString();
    expect(decideReady(beat({ loopDelayMs: 200.4 }), NOW, LIMITS, IDENTITY)).toStrictEqual({
      status: 'warn',
      version: '1.2.3',
      releaseId: 'abc',
      description: 'readiness (management)',
      checks: {
        'mainloop:heartbeatAge': [
          { componentType: 'system', observedValue: 50, observedUnit: 'ms', status: 'pass', time },
        ],
        'server:lifecycle': [
          { componentType: 'system', observedValue: 'ready', observedUnit: 'phase', status: 'pass', time },
        ],
        'server:readiness': [
          { componentType: 'system', observedValue: 'pass', observedUnit: 'status', status: 'pass', time },
        ],
        'eventloop:delay': [
          { componentType: 'system', observedValue: 200, observedUnit: 'ms', status: 'warn', time },
        ],
      },
    });
  });

  it('before the first heartbeat: starting, not decided, no delay measured', () => {
    const time = new Date(NOW).toISOString();
    expect(decideReady(null, NOW, LIMITS, IDENTITY).checks).toStrictEqual({
      'mainloop:heartbeatAge': [
        { componentType: 'system', output: 'No heartbeat yet', status: 'fail', time },
      ],
      'server:lifecycle': [
        { componentType: 'system', observedValue: 'starting', observedUnit: 'phase', status: 'fail', time },
      ],
      'server:readiness': [{ componentType: 'system', output: 'Not decided yet', status: 'fail', time }],
      'eventloop:delay': [
        { componentType: 'system', observedValue: 0, observedUnit: 'ms', status: 'pass', time },
      ],
    });
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
    // A slow client is dropped after 5 s, not Node's minutes.
    expect([server.requestTimeout, server.headersTimeout]).toEqual([5000, 5000]);
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

/** The management server on loopback, over a fresh ready heartbeat, scraping with `scrape` (none: no /metrics). */
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
      metrics: !!scrape,
    },
    scrape,
  );
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('/metrics on the management server', () => {
  const TEXT: MetricsText = { contentType: 'text/plain; version=0.0.4; charset=utf-8', text: 'up 1\n' };

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

describe('what the management server says', () => {
  it('to a path it does not serve: 404, naming the ones it does', async () => {
    const without = await serve(null);
    const withMetrics = await serve(() => Promise.resolve(null));
    try {
      const plain = await fetch(`${without.base}/health`);
      expect(plain.status).toBe(404);
      expect(plain.headers.get('content-type')).toBe('application/health+json; charset=utf-8');
      expect(plain.headers.get('x-content-type-options')).toBe('nosniff');
      expect(await plain.json()).toEqual({ status: 'fail', output: 'Not found. Try /livez or /readyz.' });
      expect(await (await fetch(`${withMetrics.base}/health`)).json()).toEqual({
        status: 'fail',
        output: 'Not found. Try /livez, /readyz or /metrics.',
      });
    } finally {
      without.server.close();
      withMetrics.server.close();
    }
  });

  it('to another method: 405, with the ones it takes', async () => {
    const { server, base } = await serve(null);
    try {
      const refused = await fetch(`${base}/readyz`, { method: 'DELETE' });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('allow')).toBe('GET, HEAD');
      expect(refused.headers.get('cache-control')).toBe('no-store');
      expect(await refused.json()).toEqual({ status: 'fail', output: 'Use GET.' });
      const head = await fetch(`${base}/readyz`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
      expect(await head.text()).toBe('');
    } finally {
      server.close();
    }
  });

  it('to a scrape: the length and headers of the text, or a 503 that says why', async () => {
    let metrics: MetricsText | null = { contentType: 'text/plain; version=0.0.4', text: 'up 1\n' };
    const { server, base } = await serve(() => Promise.resolve(metrics));
    try {
      const answer = await fetch(`${base}/metrics`);
      expect(answer.headers.get('content-length')).toBe('5');
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      await answer.text();
      metrics = null;
      const none = await fetch(`${base}/metrics`);
      expect(none.status).toBe(503);
      expect(none.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(none.headers.get('cache-control')).toBe('no-store');
      expect(await none.text()).toBe(
        'No metrics right now: the server is starting, or its main thread did not answer within 5 s.\n',
      );
    } finally {
      server.close();
    }
  });

  it('to a scrape that fails outright: the connection closes, no answer', async () => {
    const { server, base } = await serve(() => Promise.reject(new Error('broken')));
    try {
      await expect(fetch(`${base}/metrics`)).rejects.toThrow();
    } finally {
      server.close();
    }
  });

  it('to a scraper that went away before its text came: nothing, and nothing thrown', async () => {
    let answer!: (metrics: MetricsText) => void;
    const { server, base } = await serve(() => new Promise((resolve) => (answer = resolve)));
    try {
      await new Promise<void>((resolve) => {
        const req = http.get(`${base}/metrics`, { agent: false });
        req.on('error', () => resolve());
        setTimeout(() => req.destroy(), 50);
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Written to a closed response, this would throw ERR_STREAM_DESTROYED inside the server.
      answer({ contentType: 'text/plain', text: 'late' });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await fetch(`${base}/livez`)).status).toBe(200);
    } finally {
      server.close();
    }
  });
});

describe('the worker’s side of the thread', () => {
  function started(data: Partial<ManagementWorkerData> = {}) {
    const { port1, port2 } = new MessageChannel();
    const heartbeat = heartbeatIn();
    heartbeat.write({ at: Date.now(), loopDelayMs: 3, phase: 'ready', status: 'pass' });
    const messages: ManagementMessage[] = [];
    const next = () =>
      new Promise<ManagementMessage>((resolve) =>
        port2.once('message', (message: ManagementMessage) => resolve(message)),
      );
    port2.on('message', (message: ManagementMessage) => messages.push(message));
    const server = serveFromWorker(port1, {
      buffer: heartbeat.buffer,
      host: '127.0.0.1',
      port: 0,
      limits: LIMITS,
      identity: IDENTITY,
      metrics: true,
      ...data,
    });
    const close = () => {
      server.close();
      port1.close();
      port2.close();
    };
    return { port2, messages, next, server, close };
  }

  it('says where it listens, and asks the main thread for each scrape', async () => {
    const worker = started();
    try {
      const listening = await worker.next();
      expect(listening).toEqual({ kind: 'listening', port: (worker.server.address() as AddressInfo).port });
      const base = `http://127.0.0.1:${(listening as { port: number }).port}`;
      const asked = worker.next();
      const scrape = fetch(`${base}/metrics`);
      expect(await asked).toEqual({ kind: 'scrape' });
      worker.port2.postMessage({ kind: 'metrics', contentType: 'text/plain', text: 'up 1\n' });
      expect(await (await scrape).text()).toBe('up 1\n');
    } finally {
      worker.close();
    }
  });

  it('answers a scrape 503 when the main thread says it has none', async () => {
    const worker = started();
    try {
      const { port } = (await worker.next()) as { port: number };
      const asked = worker.next();
      const scrape = fetch(`http://127.0.0.1:${port}/metrics`);
      await asked;
      worker.port2.postMessage({ kind: 'metrics-failed' });
      expect((await scrape).status).toBe(503);
    } finally {
      worker.close();
    }
  });

  it('without metrics, serves no /metrics', async () => {
    const worker = started({ metrics: false });
    try {
      const { port } = (await worker.next()) as { port: number };
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
    } finally {
      worker.close();
    }
  });

  it('says why it cannot listen, with the error’s code', async () => {
    const taken = http.createServer();
    taken.listen(0, '127.0.0.1');
    await once(taken, 'listening');
    const worker = started({ port: (taken.address() as AddressInfo).port });
    try {
      expect(await worker.next()).toEqual({
        kind: 'failed',
        message: expect.stringContaining('EADDRINUSE'),
        code: 'EADDRINUSE',
      });
    } finally {
      worker.close();
      taken.close();
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

  it('gives up after its timeout, and on a failed question at once, with null', async () => {
    expect(await scraper(() => new Promise(() => {}), { timeoutMs: 20, reuseMs: 0 })()).toBeNull();
    // The timeout is far away: only the failed question can end this one in time.
    expect(
      await scraper(() => Promise.reject(new Error('gone')), { timeoutMs: 60_000, reuseMs: 0 })(),
    ).toBeNull();
  });

  it('waits 5 s for the main thread by default (docs/management.md, docs/metrics.md): not given up at 4,999 ms, at 5,000', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    try {
      let answer: MetricsText | null | 'waiting' = 'waiting';
      void scraper(() => new Promise(() => {}), { reuseMs: 0 })().then((given) => (answer = given));
      await jest.advanceTimersByTimeAsync(4999);
      expect(answer).toBe('waiting');
      await jest.advanceTimersByTimeAsync(1);
      expect(answer).toBeNull();
    } finally {
      jest.useRealTimers();
    }
  });

  it('reuses an answer for less than the reuse time, and asks again at it', async () => {
    let asked = 0;
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const scrape = scraper(
        () => {
          asked += 1;
          return Promise.resolve({ contentType: 'text/plain', text: 'up 1\n' });
        },
        { timeoutMs: 1000, reuseMs: 500 },
      );
      await scrape();
      now.mockReturnValue(1_000_499);
      await scrape();
      expect(asked).toBe(1);
      now.mockReturnValue(1_000_500);
      await scrape();
      expect(asked).toBe(2);
    } finally {
      now.mockRestore();
    }
  });
});

describe('the main thread’s side', () => {
  afterEach(() => jest.restoreAllMocks());

  it(`gives up on a worker restarted more than ${MAX_RESTARTS} times in ${RESTART_WINDOW_MS / 1000} s, not on one that restarts less often`, () => {
    const restarts: number[] = [];
    const at = 1_000_000;
    expect([0, 1, 2].map((i) => isCrashLoop(restarts, at + i))).toEqual([false, false, false]);
    // The first restart is exactly one window old: it still counts.
    expect(isCrashLoop(restarts, at + RESTART_WINDOW_MS)).toBe(true);

    const spaced: number[] = [];
    const every = RESTART_WINDOW_MS / 3 + 1;
    expect([0, 1, 2, 3, 4, 5].map((i) => isCrashLoop(spaced, at + i * every))).toEqual(Array(6).fill(false));
    expect(spaced).toHaveLength(3);
  });

  it('decides once when asked once', async () => {
    let calls = 0;
    const decide = decider(
      () => {
        calls += 1;
        return Promise.resolve('pass');
      },
      () => {},
    );
    decide();
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(1);
  });

  it('decides readiness one at a time, again after one asked for meanwhile, and "fail" when deciding fails', async () => {
    const decided: string[] = [];
    const pending: ((status: 'pass' | 'warn') => void)[] = [];
    let calls = 0;
    const decide = decider(
      () => {
        calls += 1;
        if (calls === 3) return Promise.reject(new Error('checks broke'));
        return new Promise((resolve) => pending.push(resolve));
      },
      (status) => decided.push(status),
    );
    decide();
    decide();
    decide();
    expect(calls).toBe(1);
    pending.shift()!('pass');
    await new Promise((resolve) => setImmediate(resolve));
    // The two asked for while the first ran: one more decision, not two.
    expect(calls).toBe(2);
    pending.shift()!('warn');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toBe(2);
    decide();
    await new Promise((resolve) => setImmediate(resolve));
    expect(decided).toEqual(['pass', 'warn', 'fail']);
    decide();
    expect(calls).toBe(4);
  });

  it('answers a scrape with the text, or as failed when there is none, no registry, or it threw (logged)', async () => {
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const text = { contentType: 'text/plain', text: 'up 1\n' };
    expect(await scrapeAnswer(() => Promise.resolve(text))).toEqual({ kind: 'metrics', ...text });
    expect(await scrapeAnswer(() => Promise.resolve(null))).toEqual({ kind: 'metrics-failed' });
    expect(await scrapeAnswer(undefined)).toEqual({ kind: 'metrics-failed' });
    expect(stderr).not.toHaveBeenCalled();
    expect(await scrapeAnswer(() => Promise.reject(new Error('registry broke')))).toEqual({
      kind: 'metrics-failed',
    });
    const line = JSON.parse(String(stderr.mock.calls[0]?.[0])) as {
      event: string;
      error: { message: string };
    };
    expect(line).toMatchObject({ event: 'management.metrics_failed', error: { message: 'registry broke' } });
  });

  it('says a failure to listen as the server says a port in use', () => {
    const error = listenFailure(
      { message: 'listen EADDRINUSE: address already in use', code: 'EADDRINUSE' },
      9464,
    );
    expect(error.message).toBe(
      'the management listener could not listen: listen EADDRINUSE: address already in use',
    );
    expect(error).toMatchObject({
      code: 'EADDRINUSE',
      syscall: 'listen',
      port: 9464,
      setting: 'MANAGEMENT_PORT',
    });
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
  let stdout: jest.SpyInstance;
  beforeEach(() => {
    stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
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
    const givenUpLine = stderr.mock.calls
      .map(([line]) => JSON.parse(String(line)) as { event: string; code?: number; restarts?: number })
      .find(({ event }) => event === 'management.worker_given_up');
    expect(givenUpLine).toMatchObject({ code: 3, restarts: 4 });
  });

  const events = () =>
    [...stderr.mock.calls, ...stdout.mock.calls].map(
      ([line]) => JSON.parse(String(line)) as { event: string; [field: string]: unknown },
    );

  it('leaves no heartbeat running behind a start that failed', async () => {
    let beats = 0;
    await expect(
      startManagement({
        ...options(path.join(FIXTURES, 'cannot-listen.cjs'), jest.fn()),
        loopDelayMs: () => (beats += 1),
        beatEveryMs: 5,
      }),
    ).rejects.toThrow();
    const after = beats;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(beats).toBe(after);
  });

  it('fails the start with the worker’s reason when it cannot listen, and stops that worker', async () => {
    const giveUp = jest.fn();
    await expect(
      startManagement(options(path.join(FIXTURES, 'cannot-listen.cjs'), giveUp)),
    ).rejects.toMatchObject({
      message: 'the management listener could not listen: listen EADDRINUSE: address already in use',
      code: 'EADDRINUSE',
      setting: 'MANAGEMENT_PORT',
    });
    expect(giveUp).not.toHaveBeenCalled();
  });

  it('fails the start, and logs why, when the worker cannot load', async () => {
    await expect(startManagement(options(path.join(FIXTURES, 'throws.cjs'), jest.fn()))).rejects.toThrow(
      'the worker could not load',
    );
    // (What the error says is errorFields' to write; under Jest it comes from another realm.)
    expect(events().find(({ event }) => event === 'management.worker_failed')).toHaveProperty('error');
  });

  it('answers the worker’s scrape with the registry’s text', async () => {
    // The fixture writes what it was answered to the file named as its release id.
    const out = path.join(mkdtempSync(path.join(tmpdir(), 'management-')), 'answer.json');
    const management = await startManagement({
      ...options(path.join(FIXTURES, 'scrapes.cjs'), jest.fn()),
      identity: { version: '1.2.3', releaseId: out },
      metrics: () => Promise.resolve({ contentType: 'text/plain', text: 'up 1\n' }),
    });
    try {
      await until(() => existsSync(out), 3000);
      expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual({
        kind: 'metrics',
        contentType: 'text/plain',
        text: 'up 1\n',
      });
    } finally {
      await management.stop();
    }
  });

  it('says where it listens once the worker does', async () => {
    const management = await startManagement(options(path.join(FIXTURES, 'listens.cjs'), jest.fn()));
    await management.stop();
    expect(events().find(({ event }) => event === 'management.listening')).toMatchObject({
      host: '127.0.0.1',
      port: 1,
    });
    expect(management.port).toBe(1);
  });

  it('gives up, saying why, when a restarted worker cannot start', async () => {
    // The fixture marks its first start in the file named as its release id.
    const marker = path.join(mkdtempSync(path.join(tmpdir(), 'management-')), 'started');
    let gaveUp!: () => void;
    const givenUp = new Promise<void>((resolve) => (gaveUp = resolve));
    const management = await startManagement({
      ...options(path.join(FIXTURES, 'dies-then-cannot-start.cjs'), gaveUp),
      identity: { version: '1.2.3', releaseId: marker },
    });
    try {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        givenUp,
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('never given up on')), 5000))),
      ]).finally(() => clearTimeout(timer));
      expect(events().filter(({ event }) => event.startsWith('management.worker_'))).toEqual([
        expect.objectContaining({ event: 'management.worker_restarted', code: 3 }),
        expect.objectContaining({ event: 'management.worker_failed' }),
        expect.objectContaining({ event: 'management.worker_given_up', error: expect.any(Object) }),
      ]);
    } finally {
      await management.stop().catch(() => {});
    }
  });

  it('stops the worker it restarted, and tells a worker whether it serves metrics', async () => {
    const base = path.join(mkdtempSync(path.join(tmpdir(), 'management-')), 'worker');
    const management = await startManagement({
      ...options(path.join(FIXTURES, 'dies-once-then-ticks.cjs'), jest.fn()),
      identity: { version: '1.2.3', releaseId: base },
    });
    expect(JSON.parse(readFileSync(`${base}.data`, 'utf8'))).toEqual({ metrics: false });
    await until(() => existsSync(`${base}.ticks`), 3000);
    await management.stop();
    const ticks = readFileSync(`${base}.ticks`, 'utf8').length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(readFileSync(`${base}.ticks`, 'utf8').length).toBe(ticks);
  });

  it('tells the worker it serves metrics when there is a registry', async () => {
    const base = path.join(mkdtempSync(path.join(tmpdir(), 'management-')), 'worker');
    const management = await startManagement({
      ...options(path.join(FIXTURES, 'dies-once-then-ticks.cjs'), jest.fn()),
      identity: { version: '1.2.3', releaseId: base },
      metrics: () => Promise.resolve(null),
    });
    try {
      expect(JSON.parse(readFileSync(`${base}.data`, 'utf8'))).toEqual({ metrics: true });
    } finally {
      await management.stop();
    }
  });

  it('beats and decides again when told to refresh', async () => {
    let beats = 0;
    let decisions = 0;
    const management = await startManagement({
      ...options(path.join(FIXTURES, 'listens.cjs'), jest.fn()),
      loopDelayMs: () => (beats += 1),
      readiness: () => {
        decisions += 1;
        return Promise.resolve('pass');
      },
      beatEveryMs: 60_000,
      decideEveryMs: 60_000,
    });
    try {
      await new Promise((resolve) => setImmediate(resolve));
      const before = [beats, decisions];
      management.refresh();
      await new Promise((resolve) => setImmediate(resolve));
      // Its own beat, one decision, and the beat that writes what was decided.
      expect([beats - before[0]!, decisions - before[1]!]).toEqual([2, 1]);
    } finally {
      await management.stop();
    }
  });

  describe('on a clock the test moves', () => {
    beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    it.each([
      // Each decision beats once more, as it writes the status it decided.
      [undefined, undefined, 10 + 1, 1],
      [20, 250, 50 + 4, 4],
    ])(
      'beats every %p ms and decides every %p ms (100 and 1,000 by default)',
      async (beatEveryMs, decideEveryMs, beats, decisions) => {
        let beat = 0;
        let decided = 0;
        const management = await startManagement({
          ...options(path.join(FIXTURES, 'listens.cjs'), jest.fn()),
          loopDelayMs: () => (beat += 1),
          readiness: () => {
            decided += 1;
            return Promise.resolve('pass');
          },
          beatEveryMs,
          decideEveryMs,
        });
        try {
          const [beatsBefore, decidedBefore] = [beat, decided];
          await jest.advanceTimersByTimeAsync(1000);
          expect([beat - beatsBefore, decided - decidedBefore]).toEqual([beats, decisions]);
        } finally {
          await management.stop();
        }
      },
    );

    it('writes the heartbeat every 100 ms by default (docs/management.md): not at 99 ms, at 100 and 200', async () => {
      let beats = 0;
      const management = await startManagement({
        ...options(path.join(FIXTURES, 'listens.cjs'), jest.fn()),
        loopDelayMs: () => (beats += 1),
        // Decided never, so that only the beat's timer writes.
        readiness: () => new Promise(() => {}),
      });
      try {
        const started = beats;
        await jest.advanceTimersByTimeAsync(99);
        expect(beats).toBe(started);
        await jest.advanceTimersByTimeAsync(1);
        expect(beats).toBe(started + 1);
        await jest.advanceTimersByTimeAsync(100);
        expect(beats).toBe(started + 2);
      } finally {
        await management.stop();
      }
    });
  });

  it('stops with the listener, without a restart', async () => {
    const giveUp = jest.fn();
    const management = await startManagement(options(path.join(FIXTURES, 'listens.cjs'), giveUp));
    await management.stop();
    expect(giveUp).not.toHaveBeenCalled();
    expect(String(stderr.mock.calls)).not.toContain('management.worker_restarted');
  });
});
