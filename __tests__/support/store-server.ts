// A real redis-server on loopback, for the page cache's shared store (docs/page-cache.md): Debian's
// package, installed by scripts/ensure-test-tools.sh as Chromium and HAProxy are. Nothing kept on
// disk (the cache is disposable), so a start after a kill is an empty store, as a restarted pod's.
import { type ChildProcess, spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { until } from './until';

export const REDIS_SERVER_PATH = process.env.REDIS_SERVER_PATH ?? '/usr/bin/redis-server';

export interface StoreServer {
  port: number;
  url: string;
  /** SIGKILL, as a node losing its pod: no goodbye to the clients. */
  kill: () => Promise<void>;
  /** Started again on the same port, empty. */
  restart: () => Promise<void>;
  stop: () => Promise<void>;
}

/** Whether something accepts connections on `port` now. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startStoreServer(port: number): Promise<StoreServer> {
  let child: ChildProcess | null = null;
  const launch = async () => {
    child = spawn(
      REDIS_SERVER_PATH,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
      ],
      { stdio: 'ignore' },
    );
    await until(() => accepts(port), 10_000, 50);
  };
  const kill = async () => {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    child = null;
  };
  await launch();
  return { port, url: `redis://127.0.0.1:${port}/0`, kill, restart: launch, stop: kill };
}
