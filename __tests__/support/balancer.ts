// Debian's HAProxy in front of two or more instances on loopback, as a Kubernetes Service is in
// front of a rolling Deployment: round robin per request, no affinity, an instance taken out once
// its readiness fails, a refused connection tried again on another. Installed by
// scripts/ensure-test-tools.sh, as Chromium is.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { haproxyLanguageRules } from '../../lib/error-pages/balancer-pages';
import { freePort } from './server';

export interface Balancer {
  url: string;
  /** The name of the instance that answered, from the X-Served-By header the balancer adds. */
  servedBy: (headers: Record<string, string>) => string;
  output: () => string;
  stop: () => Promise<void>;
}

function haproxyPath(): string {
  if (process.env.HAPROXY_PATH) return process.env.HAPROXY_PATH;
  for (const candidate of ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy']) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('HAProxy is not installed: run `bash scripts/ensure-test-tools.sh`');
}

/** The languages a build's error-pages/ folder has pages in, but the default (its top level). */
function languagesIn(errorPages: string): string[] {
  return readdirSync(errorPages, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(path.join(errorPages, entry.name, '503.http')))
    .map((entry) => entry.name)
    .filter(
      (language) =>
        readFileSync(path.join(errorPages, language, '503.http'), 'utf8') !==
        readFileSync(path.join(errorPages, '503.http'), 'utf8'),
    );
}

/**
 * `backends` maps a name to an instance's base URL (http://127.0.0.1:PORT). `errorPages`: a build's
 * error-pages/ folder, whose errorfiles the balancer answers with when it cannot reach an instance,
 * as deploy/haproxy/haproxy.cfg has it do.
 */
export async function startBalancer(
  backends: Record<string, string>,
  { errorPages }: { errorPages?: string } = {},
): Promise<Balancer> {
  const port = await freePort();
  const folder = mkdtempSync(path.join(tmpdir(), 'balancer-'));
  const servers = Object.entries(backends).map(([name, base]) => {
    const { host } = new URL(base);
    // Checked every 250 ms; one failed check takes it out, one good one brings it back.
    return `  server ${name} ${host} check inter 250 fall 1 rise 1`;
  });
  const config = [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 1s',
    '  timeout client 30s',
    '  timeout server 30s',
    // A connection an instance refuses (it has just stopped) is tried on another one.
    '  retries 2',
    '  option redispatch 1',
    ...(errorPages
      ? [502, 503, 504].map((status) => `  errorfile ${status} ${path.join(errorPages, `${status}.http`)}`)
      : []),
    'frontend visitors',
    `  bind 127.0.0.1:${port}`,
    ...(errorPages ? haproxyLanguageRules(errorPages, languagesIn(errorPages)) : []),
    '  default_backend app',
    'backend app',
    '  balance roundrobin',
    '  option httpchk GET /api/health/ready',
    '  http-response set-header X-Served-By %s',
    ...servers,
    '',
  ].join('\n');
  const file = path.join(folder, 'haproxy.cfg');
  writeFileSync(file, config);
  const binary = haproxyPath();
  const check = spawnSync(binary, ['-c', '-q', '-f', file], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`HAProxy refused its configuration: ${check.stderr}`);

  let output = '';
  const child: ChildProcess = spawn(binary, ['-db', '-f', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;

  const deadline = performance.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`HAProxy exited at start: ${output}`);
    const status = await fetch(`${url}/api/health/live`).then(
      (res) => res.status,
      () => 0,
    );
    if (status === 200) break;
    if (performance.now() > deadline) throw new Error(`HAProxy never answered on ${url}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }

  return {
    url,
    servedBy: (headers) => headers['x-served-by'] ?? '',
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
