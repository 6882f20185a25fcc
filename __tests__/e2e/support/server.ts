// Starts the production server (the README's `npm start`: node lib/server/start.js) on a free
// loopback port, and stops it again.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { ROOT } from './paths';

export interface RunningServer {
  url: string;
  port: number;
  child: ChildProcess;
  /** From spawn to the first 200 from /api/health/ready. */
  readyAfterMs: number;
  output: () => string;
  /** Sends SIGTERM and resolves with the exit code (SIGKILL after 20 s). */
  stop: () => Promise<number | null>;
  exited: Promise<number | null>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function waitUntilReady(url: string, child: ChildProcess, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(`${url}/api/health/ready`, { signal: AbortSignal.timeout(1000) });
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`server at ${url} was not ready within ${timeoutMs} ms`);
}

export async function startServer({
  distDir,
  env = {},
  nodeOptions,
  root = ROOT,
}: {
  distDir: string;
  env?: Record<string, string>;
  nodeOptions?: string;
  /** Where the app lives: the repository, or an assembled standalone folder. */
  root?: string;
}): Promise<RunningServer> {
  const port = await freePort();
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(root, 'lib/server/start.js')], {
    cwd: root,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      NEXT_DIST_DIR: distDir,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk) => (output += chunk));
  child.stderr?.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(url, child, 30_000);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${(error as Error).message}\n${output}`);
  }
  const readyAfterMs = Date.now() - started;
  const stop = async () => {
    if (child.exitCode !== null) return child.exitCode;
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.kill('SIGTERM');
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return { url, port, child, readyAfterMs, output: () => output, stop, exited };
}
