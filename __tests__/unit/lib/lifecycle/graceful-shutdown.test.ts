/** @jest-environment node */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { installGracefulShutdown } from '../../../../lib/lifecycle/graceful-shutdown';
import { beforeExit, currentPhase, enterPhase } from '../../../../lib/lifecycle/state';
import { resetLifecycle } from '../../../../lib/lifecycle/state';

let server: Server;
let base: string;
let releaseSlow: () => void;

beforeEach(async () => {
  resetLifecycle();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  const slowGate = new Promise<void>((resolve) => (releaseSlow = resolve));
  server = createServer((req, res) => {
    if (req.url === '/slow') {
      void slowGate.then(() => res.end('slow done'));
      return;
    }
    res.end(`phase=${currentPhase()}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  enterPhase('ready');
});

afterEach(async () => {
  releaseSlow();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  jest.restoreAllMocks();
});

function install(options: { drainMs: number; shutdownTimeoutMs: number }) {
  const exit = jest.fn();
  const controls = installGracefulShutdown({ server, ...options, exit, signals: [] });
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
    const slow = fetch(`${base}/slow`).then((res) => res.text());
    await new Promise((resolve) => setTimeout(resolve, 50));
    const done = shutdown('test');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(fetch(`${base}/`)).rejects.toThrow();
    expect(exit).not.toHaveBeenCalled();
    releaseSlow();
    expect(await slow).toBe('slow done');
    await done;
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('gives up on requests that outlast the shutdown timeout and still exits 0', async () => {
    const { exit, shutdown } = install({ drainMs: 0, shutdownTimeoutMs: 100 });
    const slow = fetch(`${base}/slow`).then(
      () => 'answered',
      () => 'connection closed',
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    await shutdown('test');
    expect(await slow).toBe('connection closed');
    expect(exit).toHaveBeenCalledWith(0);
  });

  it('runs before-exit tasks (flushing reports) before it exits', async () => {
    const order: string[] = [];
    beforeExit('flush', async () => {
      order.push('flush');
    });
    const exit = jest.fn(() => order.push('exit'));
    await installGracefulShutdown({ server, drainMs: 0, shutdownTimeoutMs: 100, exit, signals: [] }).shutdown(
      't',
    );
    expect(order).toEqual(['flush', 'exit']);
  });

  it('does not wait for a before-exit task that hangs', async () => {
    beforeExit('hang', () => new Promise(() => {}));
    const exit = jest.fn();
    await installGracefulShutdown({
      server,
      drainMs: 0,
      shutdownTimeoutMs: 100,
      flushTimeoutMs: 50,
      exit,
      signals: [],
    }).shutdown('t');
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
