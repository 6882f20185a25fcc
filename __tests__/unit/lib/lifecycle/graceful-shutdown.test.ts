import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRequestCounter,
  installGracefulShutdown,
  type RequestCounter,
} from '../../../../lib/lifecycle/graceful-shutdown';
import { beforeExit, currentPhase, enterPhase } from '../../../../lib/lifecycle/state';
import { resetLifecycle } from '../../../../lib/lifecycle/state';

let server: Server;
/** The count the server keeps, as lib/server/pipeline.ts keeps it. */
let requests: RequestCounter;
let base: string;
/** Requests to /slow/<name> wait until the test releases them. */
let slow: Map<string, { arrived: Promise<void>; arrive: () => void; release: () => void }>;
/** Resolves when the server stops accepting connections. */
let stoppedAccepting: Promise<void>;

function gate(name: string) {
  let entry = slow.get(name);
  if (!entry) {
    let arrive!: () => void;
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    entry = { arrived, arrive, release: () => {} };
    slow.set(name, entry);
  }
  return entry;
}

/** What fetch() rejected with, by its low-level code: refused before, or closed after arriving. */
function failureOf(request: Promise<Response>): Promise<string> {
  return request.then(
    (res) => `answered ${res.status}`,
    (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
  );
}

beforeEach(async () => {
  resetLifecycle();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  slow = new Map();
  requests = createRequestCounter();
  server = createServer((req, res) => {
    requests.requestStarted(res);
    if (req.url?.startsWith('/slow/')) {
      const entry = gate(req.url.slice('/slow/'.length));
      entry.release = () => res.end('slow done');
      entry.arrive();
      return;
    }
    res.end(`phase=${currentPhase()}`);
  });
  const close = server.close.bind(server);
  stoppedAccepting = new Promise((resolve) => {
    server.close = (callback?: (error?: Error) => void) => {
      close(callback);
      resolve();
      return server;
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  enterPhase('ready');
});

afterEach(async () => {
  for (const entry of slow.values()) entry.release();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  jest.restoreAllMocks();
});

function install(options: { drainMs: number; shutdownTimeoutMs: number }) {
  const exit = jest.fn();
  const controls = installGracefulShutdown({ server, requests, ...options, exit, signals: [] });
  return { exit, ...controls };
}

describe('graceful shutdown', () => {
  it('keeps serving during the drain, with readiness failing, then exits 0', async () => {
    const { exit, shutdown } = install({ drainMs: 150, shutdownTimeoutMs: 1000 });
    const done = shutdown('test');
    expect(currentPhase()).toBe('draining');
    const during = await fetch(`${base}/`);
    expect(await during.text()).toBe('phase=draining');
    // Clients are asked to reconnect elsewhere.
    expect(during.headers.get('connection')).toBe('close');
    await done;
    expect(currentPhase()).toBe('closed');
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('stops accepting after the drain but lets an in-flight request finish', async () => {
    const { exit, shutdown } = install({ drainMs: 0, shutdownTimeoutMs: 5000 });
    const inFlight = fetch(`${base}/slow/a`).then((res) => res.text());
    await gate('a').arrived;
    const done = shutdown('test');
    await stoppedAccepting;
    // A new connection is refused: not reset, not answered.
    expect(await failureOf(fetch(`${base}/`))).toBe('ECONNREFUSED');
    expect(exit).not.toHaveBeenCalled();
    gate('a').release();
    expect(await inFlight).toBe('slow done');
    await done;
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('waits up to the shutdown timeout, then closes what is still in flight and exits 0', async () => {
    const stderr = process.stderr.write as unknown as jest.Mock;
    const { exit, shutdown } = install({ drainMs: 0, shutdownTimeoutMs: 300 });
    const finishes = fetch(`${base}/slow/finishes`).then((res) => res.text());
    const outlasts = failureOf(fetch(`${base}/slow/outlasts`));
    await Promise.all([gate('finishes').arrived, gate('outlasts').arrived]);
    const done = shutdown('test');
    await stoppedAccepting;
    // Released only once the server has stopped accepting: answered because shutdown waits.
    gate('finishes').release();
    expect(await finishes).toBe('slow done');
    expect(exit).not.toHaveBeenCalled();
    await done;
    // The other arrived before shutdown, so its connection was closed under it, not refused.
    expect(await outlasts).toBe('UND_ERR_SOCKET');
    const abandoned = stderr.mock.calls
      .map(([line]) => String(line))
      .filter((line) => line.includes('lifecycle.requests_abandoned'));
    expect(abandoned).toHaveLength(1);
    expect(JSON.parse(abandoned[0]!)).toEqual(expect.objectContaining({ count: 1, shutdownTimeoutMs: 300 }));
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('runs before-exit tasks (flushing reports) before it exits', async () => {
    const order: string[] = [];
    beforeExit('flush', async () => {
      order.push('flush');
    });
    const exit = jest.fn(() => order.push('exit'));
    await installGracefulShutdown({
      server,
      requests,
      drainMs: 0,
      shutdownTimeoutMs: 100,
      exit,
      signals: [],
    }).shutdown('t');
    expect(order).toEqual(['flush', 'exit']);
  });

  it('hands over what it holds after the flush, before it exits, and exits 0 even when that fails', async () => {
    const order: string[] = [];
    beforeExit('flush', async () => {
      order.push('flush');
    });
    const exit = jest.fn(() => order.push('exit'));
    await installGracefulShutdown({
      server,
      requests,
      drainMs: 0,
      shutdownTimeoutMs: 100,
      handOver: async () => {
        order.push(`hand over (${currentPhase()})`);
        throw new Error('no peer answered');
      },
      exit,
      signals: [],
    }).shutdown('t');
    expect(order).toEqual(['flush', 'hand over (draining)', 'exit']);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('does not wait for a before-exit task that hangs', async () => {
    beforeExit('hang', () => new Promise(() => {}));
    const exit = jest.fn();
    await installGracefulShutdown({
      server,
      requests,
      drainMs: 0,
      shutdownTimeoutMs: 100,
      flushTimeoutMs: 50,
      exit,
      signals: [],
    }).shutdown('t');
    expect(exit).toHaveBeenCalledWith(0);
  });
});

describe('the flush at exit, by default (docs/operations.md: at most 2 s)', () => {
  afterEach(() => jest.useRealTimers());

  it('waits 2 s for a before-exit task: not cut at 1,999 ms, cut at 2,000', async () => {
    beforeExit('hang', () => new Promise(() => {}));
    const exit = jest.fn();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    void installGracefulShutdown({
      server,
      requests,
      drainMs: 0,
      shutdownTimeoutMs: 0,
      exit,
      signals: [],
    }).shutdown('t');
    await jest.advanceTimersByTimeAsync(1999);
    expect(exit).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(1);
    expect(exit).toHaveBeenCalledWith(0);
  });
});

describe('lifecycle state', () => {
  it('only moves forward', () => {
    expect(currentPhase()).toBe('ready');
    expect(enterPhase('starting')).toBe(false);
    expect(enterPhase('draining')).toBe(true);
    expect(enterPhase('ready')).toBe(false);
    expect(currentPhase()).toBe('draining');
  });
});
