// Starts the production server (the README's `npm start`: node dist/lib/server/start.js) on a free
// loopback port, and stops it again. The process handling is shared with the benchmarks.
import path from 'node:path';
import { freePort, type ServerProcess, startServerProcess } from '../../scripts/lib/server-process';
import { ROOT } from './paths';

export { freePort };

export type RunningServer = ServerProcess;

export function startServer({
  distDir,
  env = {},
  nodeOptions,
  root = ROOT,
  port,
  readyPath = '/api/health/ready',
}: {
  /** Where the readiness probe is served (`/shop/api/health/ready` in a build with a base path). */
  readyPath?: string;
  distDir: string;
  /** A port of the test's choosing (two builds in turn on one port); a free one otherwise. */
  port?: number;
  env?: Record<string, string>;
  nodeOptions?: string;
  /** Where the app lives: the repository, or an assembled standalone folder. */
  root?: string;
}): Promise<RunningServer> {
  return startServerProcess({
    command: process.execPath,
    args: [path.join(root, 'dist/lib/server/start.js')],
    cwd: root,
    env: {
      NEXT_DIST_DIR: distDir,
      HOST: '127.0.0.1',
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      ...env,
    },
    readyPath,
    timeoutMs: 30_000,
    port,
  });
}

/** The time (ms since the epoch) of the first log line the server wrote for `event`. */
export function loggedAt(server: RunningServer, event: string): number {
  for (const line of server.output().split('\n')) {
    if (!line.includes(`"event":"${event}"`)) continue;
    const { time } = JSON.parse(line) as { time: string };
    return Date.parse(time);
  }
  throw new Error(`the server never logged ${event}`);
}

/**
 * Resolves once the server has printed a line matching `pattern` (its logs are the events it
 * announces); rejects after `timeoutMs`, so a line that never comes fails the test, not the suite.
 */
export async function waitForOutput(
  server: RunningServer,
  pattern: RegExp,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!pattern.test(server.output())) {
    if (performance.now() > deadline) throw new Error(`the server never printed ${pattern}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
