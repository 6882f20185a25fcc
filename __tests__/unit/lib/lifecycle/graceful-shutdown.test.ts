import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createRequestCounter,
  installGracefulShutdown,
  type RequestCounter,
  type ShutdownOptions,
} from '@lib/lifecycle/graceful-shutdown';
import { beforeExit, currentPhase, enterPhase } from '@lib/lifecycle/state';
import { resetLifecycle } from '@lib/lifecycle/state';

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

/** Shutdown on this file's server and count, listening for no signal, its exit a mock unless given. */
function install(
  options: Pick<ShutdownOptions, 'drainMs' | 'shutdownTimeoutMs'> &
    Partial<Omit<ShutdownOptions, 'drainMs' | 'shutdownTimeoutMs' | 'signals'>>,
) {
  const { exit = jest.fn(), ...rest } = options;
  const controls = installGracefulShutdown({ server, requests, ...rest, exit, signals: [] });
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

  it('cuts stalled requests once they have been waited for as long as the request timeout, after it stops accepting', async () => {
    const cut = jest.fn(() => gate('stalled').release());
    const { exit, shutdown } = install({
      drainMs: 0,
      shutdownTimeoutMs: 5000,
      stalled: { afterMs: 200, cut },
    });
    const stalled = fetch(`${base}/slow/stalled`).then((res) => res.text());
    await gate('stalled').arrived;
    const started = performance.now();
    const done = shutdown('test');
    await stoppedAccepting;
    expect(cut).not.toHaveBeenCalled();
    expect(await stalled).toBe('slow done');
    await done;
    expect(cut).toHaveBeenCalledTimes(1);
    // Which timer ended it: the stalled request's, not the shutdown timeout.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('cuts nothing when every request ends before the request timeout', async () => {
    const cut = jest.fn();
    const { shutdown } = install({ drainMs: 0, shutdownTimeoutMs: 5000, stalled: { afterMs: 100, cut } });
    await shutdown('test');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(cut).not.toHaveBeenCalled();
  });

  it('runs before-exit tasks (flushing reports) before it exits', async () => {
    const order: string[] = [];
    beforeExit('flush', async () => {
      order.push('flush');
    });
    const exit = jest.fn(() => order.push('exit'));
    await install({
      drainMs: 0,
      shutdownTimeoutMs: 100,
      exit,
    }).shutdown('t');
    expect(order).toEqual(['flush', 'exit']);
  });

  it('hands over what it holds after the flush, before it exits, and exits 0 even when that fails', async () => {
    const order: string[] = [];
    beforeExit('flush', async () => {
      order.push('flush');
    });
    const exit = jest.fn(() => order.push('exit'));
    await install({
      drainMs: 0,
      shutdownTimeoutMs: 100,
      handOver: async () => {
        order.push(`hand over (${currentPhase()})`);
        throw new Error('no peer answered');
      },
      exit,
    }).shutdown('t');
    expect(order).toEqual(['flush', 'hand over (draining)', 'exit']);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('does not wait for a before-exit task that hangs', async () => {
    beforeExit('hang', () => new Promise(() => {}));
    const { exit, shutdown } = install({
      drainMs: 0,
      shutdownTimeoutMs: 100,
      flushTimeoutMs: 50,
    });
    await shutdown('t');
    expect(exit).toHaveBeenCalledWith(0);
  });
});

describe('the flush at exit, by default (docs/operations.md: at most 2 s)', () => {
  afterEach(() => jest.useRealTimers());

  it('waits 2 s for a before-exit task: not cut at 1,999 ms, cut at 2,000', async () => {
    beforeExit('hang', () => new Promise(() => {}));
    const exit = jest.fn();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    void install({
      drainMs: 0,
      shutdownTimeoutMs: 0,
      exit,
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

/** The JSON lines written (stdout and stderr, in order of writing) whose event is `event`. */
function logged(event: string): Record<string, unknown>[] {
  const written = (stream: NodeJS.WriteStream) => {
    const { mock } = stream.write as unknown as jest.Mock;
    return mock.invocationCallOrder.map((order, index) => ({ order, line: mock.calls[index]![0] }));
  };
  const calls = [...written(process.stdout), ...written(process.stderr)].sort((a, b) => a.order - b.order);
  return calls
    .map(({ line }) => JSON.parse(String(line)) as Record<string, unknown>)
    .filter((line) => line.event === event);
}

describe('what shutdown tells operators (docs/operations.md lists these events)', () => {
  it('logs each step in order, with the figures that explain it', async () => {
    jest.spyOn(process, 'uptime').mockReturnValue(3600);
    resetLifecycle();
    enterPhase('ready');
    const { shutdown } = install({ drainMs: 10, shutdownTimeoutMs: 300, budgetMs: 2330 });
    await shutdown('SIGTERM');
    const ready = logged('lifecycle.ready').at(-1);
    // Up an hour by the process's clock: the phase line says so.
    expect(ready).toMatchObject({ level: 'info', from: 'starting' });
    expect(ready!.uptimeMs).toBeGreaterThanOrEqual(3_600_000);
    expect(ready!.uptimeMs).toBeLessThan(3_610_000);
    expect(logged('lifecycle.draining')).toEqual([
      expect.objectContaining({
        level: 'warn',
        from: 'ready',
        reason: 'SIGTERM',
        drainMs: 10,
        shutdownTimeoutMs: 300,
        budgetMs: 2330,
      }),
    ]);
    expect(logged('lifecycle.stop_accepting')).toEqual([
      expect.objectContaining({ level: 'info', inFlight: 0 }),
    ]);
    const [closed] = logged('lifecycle.closed');
    expect(closed).toMatchObject({ level: 'info', from: 'draining' });
    expect(closed!.shutdownMs).toEqual(expect.any(Number));
    // (A timer may fire a millisecond early by Date.now(): no tighter lower bound.)
    expect(closed!.shutdownMs).toBeGreaterThanOrEqual(0);
    expect(closed!.shutdownMs).toBeLessThan(60_000);
    // A clean shutdown abandons nothing, waits for no task, and says nothing of either.
    expect(logged('lifecycle.requests_abandoned')).toEqual([]);
    expect(logged('lifecycle.before_exit_timeout')).toEqual([]);
  });

  it('names a before-exit task that failed, and one that ran out of time', async () => {
    beforeExit('flush', async () => {
      throw new Error('disk full');
    });
    beforeExit('hang', () => new Promise(() => {}));
    const { exit, shutdown } = install({
      drainMs: 0,
      shutdownTimeoutMs: 100,
      flushTimeoutMs: 50,
    });
    await shutdown('t');
    expect(logged('lifecycle.before_exit_failed')).toEqual([
      expect.objectContaining({
        level: 'error',
        task: 'flush',
        error: expect.objectContaining({ message: 'disk full' }),
      }),
    ]);
    expect(logged('lifecycle.before_exit_timeout')).toEqual([
      expect.objectContaining({ level: 'warn', timeoutMs: 50 }),
    ]);
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('says why the hand-over failed', async () => {
    await install({
      drainMs: 0,
      shutdownTimeoutMs: 100,
      handOver: async () => {
        throw new Error('no peer answered');
      },
    }).shutdown('t');
    expect(logged('lifecycle.hand_over_failed')).toEqual([
      expect.objectContaining({
        level: 'error',
        error: expect.objectContaining({ message: 'no peer answered' }),
      }),
    ]);
  });
});

describe('the shutdown timeout, on a fake clock', () => {
  afterEach(() => jest.useRealTimers());

  it('closes what is still in flight at exactly SHUTDOWN_TIMEOUT_MS, not a tick before or after', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const at: Record<string, number> = {};
    const stub = {
      close: jest.fn(() => (at.close = Date.now())),
      closeIdleConnections: jest.fn(),
      closeAllConnections: jest.fn(() => (at.closeAll = Date.now())),
    };
    const stuck: RequestCounter = { requestStarted: () => {}, inFlight: () => 1, startDraining: () => {} };
    const exit = jest.fn();
    void installGracefulShutdown({
      server: stub as unknown as Server,
      requests: stuck,
      drainMs: 0,
      shutdownTimeoutMs: 100,
      flushTimeoutMs: 0,
      exit,
      signals: [],
    }).shutdown('t');
    await jest.advanceTimersByTimeAsync(1);
    expect(stub.close).toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(98);
    expect(stub.closeAllConnections).not.toHaveBeenCalled();
    await jest.advanceTimersByTimeAsync(200);
    expect(stub.closeAllConnections).toHaveBeenCalledTimes(1);
    // Given up on exactly when the timeout says, counted from when it stopped accepting.
    expect(at.closeAll! - at.close!).toBe(100);
    expect(logged('lifecycle.requests_abandoned')).toEqual([
      expect.objectContaining({ level: 'warn', count: 1, shutdownTimeoutMs: 100 }),
    ]);
    expect(exit).toHaveBeenCalledWith(0);
  });
});

describe('signals', () => {
  const installed = new Map<NodeJS.Signals, ((...args: unknown[]) => void)[]>();
  /** Listens as the server does, remembering what it added so the test leaves the process as it was. */
  function listen(options: Partial<Parameters<typeof installGracefulShutdown>[0]>) {
    const before = new Map((['SIGTERM', 'SIGINT'] as const).map((s) => [s, process.listeners(s)]));
    installGracefulShutdown({ server, requests, drainMs: 50, shutdownTimeoutMs: 100, ...options });
    for (const [signal, listeners] of before)
      installed.set(
        signal,
        process.listeners(signal).filter((listener) => !listeners.includes(listener)) as never,
      );
  }
  afterEach(() => {
    for (const [signal, listeners] of installed)
      for (const listener of listeners) process.off(signal, listener);
    installed.clear();
  });
  /**
   * The signal as the process delivers it: to each listener the server added. (Jest's sandboxed
   * `process` keeps listeners on the real one, but its emit() does not reach them.)
   */
  const signal = (name: 'SIGTERM' | 'SIGINT') => {
    for (const listener of installed.get(name) ?? []) listener(name);
  };

  const exited = () => {
    const codes: number[] = [];
    let settle!: () => void;
    const zero = new Promise<void>((resolve) => (settle = resolve));
    const exit = jest.fn((code: number) => {
      codes.push(code);
      if (code === 0 || code === 1) settle();
    });
    return { exit, codes, done: zero };
  };

  it.each([
    ['SIGTERM', 143],
    ['SIGINT', 130],
  ] as const)('%s drains; a second one exits at once with %i, and says so', async (name, code) => {
    const { exit, codes, done } = exited();
    listen({ exit, signals: [name] });
    signal(name);
    expect(currentPhase()).toBe('draining');
    expect(logged('lifecycle.draining')).toEqual([expect.objectContaining({ reason: name })]);
    // No budget given, none said.
    expect(logged('lifecycle.draining')[0]).not.toHaveProperty('budgetMs');
    signal(name);
    expect(codes).toEqual([code]);
    expect(logged('lifecycle.forced_exit')).toEqual([
      expect.objectContaining({ level: 'warn', signal: name }),
    ]);
    await done;
    expect(codes).toEqual([code, 0]);
  });

  it('listens for SIGTERM and SIGINT, and exits the process, unless told otherwise', async () => {
    let exited!: (code: unknown) => void;
    const code = new Promise((resolve) => (exited = resolve));
    jest.spyOn(process, 'exit').mockImplementation(((value: unknown) => exited(value)) as never);
    listen({ drainMs: 0 });
    expect(installed.get('SIGTERM')).toHaveLength(1);
    expect(installed.get('SIGINT')).toHaveLength(1);
    signal('SIGTERM');
    expect(await code).toBe(0);
  });

  it('exits 1 when the shutdown itself fails, and says why', async () => {
    const { exit, codes, done } = exited();
    listen({
      exit,
      signals: ['SIGTERM'],
      onDraining: () => {
        throw new Error('readiness could not turn');
      },
    });
    signal('SIGTERM');
    await done;
    expect(codes).toEqual([1]);
    expect(logged('lifecycle.shutdown_failed')).toEqual([
      expect.objectContaining({
        level: 'error',
        error: expect.objectContaining({ message: 'readiness could not turn' }),
      }),
    ]);
  });
});
