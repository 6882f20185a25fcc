// Debian's HAProxy in front of two or more instances on loopback, running the project's shipped
// configuration (deploy/haproxy/haproxy.cfg) with its addresses replaced: round robin per request,
// no affinity, an instance taken out once its readiness fails, what is safe to retry retried on
// another. Installed by scripts/ensure-test-tools.sh, as Chromium is.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { haproxyLanguageRules } from '@lib/error-pages/balancer-pages';
import { ROOT } from './paths';
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

/** The configuration the project ships (deploy/haproxy/haproxy.cfg), which every balancer here runs. */
export const SHIPPED_CONFIG = path.join(ROOT, 'deploy', 'haproxy', 'haproxy.cfg');
/** Where the shipped configuration finds a build's error pages: the image's layout. */
const SHIPPED_ERROR_PAGES = '/app/.next/error-pages';

/**
 * The shipped configuration for instances on loopback: its own listen address, servers and
 * errorfiles replaced by these, every rule of it (retries, checks, timeouts) kept. `checks`
 * replaces the health-check timings (`default-server …`) for tests that need an instance out or
 * back sooner than the shipped 2 s × 2.
 */
export function loopbackConfig(
  shipped: string,
  {
    port,
    servers,
    errorPages,
    checks,
  }: { port: number; servers: string[]; errorPages?: string; checks?: string },
): string {
  const lines: string[] = [];
  for (const line of shipped.split('\n')) {
    const indent = line.slice(0, line.length - line.trimStart().length);
    const words = line.trim().split(/\s+/);
    if (words[0] === 'bind') lines.push(`${indent}bind 127.0.0.1:${port}`);
    else if (words[0] === 'server') continue;
    else if (words[0] === 'default-server' && checks) lines.push(`${indent}default-server ${checks}`);
    // The errorfiles and the per-language rules, for this build's pages and languages, or none.
    else if (words[0] === 'errorfile' && !errorPages) continue;
    else if ((words[0] === 'http-request' && words[1] === 'return') || words[0] === 'acl') continue;
    else if (words[0] === 'default_backend')
      lines.push(...(errorPages ? haproxyLanguageRules(errorPages, languagesIn(errorPages)) : []), line);
    else if (words[0] === 'backend') lines.push(line, `${indent}  http-response set-header X-Served-By %s`);
    else lines.push(line.replaceAll(SHIPPED_ERROR_PAGES, errorPages ?? SHIPPED_ERROR_PAGES));
  }
  lines.push(...servers, '');
  return lines.join('\n');
}

/**
 * `backends` maps a name to an instance's base URL (http://127.0.0.1:PORT). `errorPages`: a build's
 * error-pages/ folder, whose errorfiles the balancer answers with when it cannot reach an instance,
 * as deploy/haproxy/haproxy.cfg has it do. `checks`: see loopbackConfig; by default an instance is
 * checked every 250 ms, taken out by one failed check and brought back by one good one, so that
 * tests of what a visitor sees need not wait out the shipped timings.
 */
export async function startBalancer(
  backends: Record<string, string>,
  {
    errorPages,
    checks = 'check inter 250 fall 1 rise 1',
  }: { errorPages?: string; checks?: string | null } = {},
): Promise<Balancer> {
  const port = await freePort();
  const folder = mkdtempSync(path.join(tmpdir(), 'balancer-'));
  const servers = Object.entries(backends).map(([name, base]) => `  server ${name} ${new URL(base).host}`);
  const config = loopbackConfig(readFileSync(SHIPPED_CONFIG, 'utf8'), {
    port,
    servers,
    errorPages,
    checks: checks ?? undefined,
  });
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
