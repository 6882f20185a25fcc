// The container image's contents, without a Docker engine: build standalone output, assemble it
// with the same script the Dockerfile runs, and boot it from a folder with no node_modules above it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { rawRequest } from '../support/http';
import { ROOT, STANDALONE_DIST } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';

const DIST = STANDALONE_DIST;
let folder: string;
let server: RunningServer;

/** The Dockerfile's HEALTHCHECK command, as the container engine would run it (exec form). */
function healthcheckCommand(): string[] {
  const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n\s*/g, '');
  const json = /^HEALTHCHECK .*?CMD (\[.*\])$/m.exec(dockerfile)?.[1];
  if (!json) throw new Error('The Dockerfile has no exec-form HEALTHCHECK');
  return JSON.parse(json) as string[];
}

/** Runs the HEALTHCHECK from inside the image's folder, with the image's PORT. */
function runHealthcheck(): number | null {
  const [command, ...args] = healthcheckCommand();
  expect(command).toBe('node');
  return spawnSync(process.execPath, args, {
    cwd: folder,
    env: { ...process.env, PORT: String(server.port) },
    timeout: 10_000,
  }).status;
}

beforeAll(async () => {
  buildUnlessKept(DIST, plannedEnv(DIST));
  // What Next's standalone output does with a project's .env files: copies them along. The
  // assembly must leave them out.
  writeFileSync(
    path.join(ROOT, DIST, 'standalone/.env.production'),
    'DATABASE_URL=postgres://app:hunter2@db/app\n',
  );
  writeFileSync(path.join(ROOT, DIST, 'standalone/.env.local'), 'API_TOKEN=s3cr3t\n');
  folder = mkdtempSync(path.join(tmpdir(), 'app-shell-image-'));
  const assemble = spawnSync('bash', ['scripts/assemble-standalone.sh', DIST, folder], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (assemble.status !== 0) throw new Error(`assembling failed (exit ${assemble.status})`);
  server = await startServer({ distDir: DIST, root: folder });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  if (folder) rmSync(folder, { recursive: true, force: true });
});

describe('the standalone server the image runs', () => {
  it('becomes ready and serves the health contract', async () => {
    expect((await rawRequest(server.url, '/api/health/ready')).status).toBe(200);
    expect((await rawRequest(server.url, '/api/health/live')).status).toBe(200);
  });

  it('serves the 404 screen and its static assets, with the security headers', async () => {
    const page = await rawRequest(server.url, '/missing');
    expect(page.status).toBe(404);
    expect(page.body).toContain('Page not found');
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    // The 404 ships no script; its stylesheet is a static asset like any other.
    const stylesheet = page.body.match(/href="(\/_next\/static\/[^"]+\.css)"/)![1]!;
    const asset = await rawRequest(server.url, stylesheet);
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  it("holds every build step's output, and answers a 404 in the visitor's language from it", async () => {
    // output: 'standalone' is a setting a product may set too: each build step wrote where the
    // assembled folder serves from.
    for (const file of [
      'BUILD_ID',
      'carried-builds.json',
      'error-pages/503.http',
      'error-pages/fr/503.html',
      'error-pages/fr/404.html',
      'service-worker/fr.js',
    ])
      expect([file, existsSync(path.join(folder, DIST, file))]).toEqual([file, true]);
    const page = await rawRequest(server.url, '/missing', { headers: { 'Accept-Language': 'fr' } });
    expect([page.status, page.headers['content-language']]).toEqual([404, 'fr']);
    expect(page.body).toMatch(/^<!DOCTYPE html><html lang="fr" dir="ltr">/);
  });

  it('serves /metrics on the management port: the packages only the compiled server needs are there', async () => {
    const scrape = await fetch(`http://127.0.0.1:${server.managementPort}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('http_server_request_duration_seconds_count{');
  });

  it("caches pages through the shell's handler, which Next finds in the image beside the compiled server", () => {
    const ready = server
      .output()
      .split('\n')
      .find((line) => line.includes('"event":"page_cache.ready"'));
    expect(ready && JSON.parse(ready)).toMatchObject({ store: null, folder: true });
    expect(existsSync(path.join(folder, 'node_modules/@redis/client/package.json'))).toBe(true);
  });

  it('passes the Dockerfile’s HEALTHCHECK with exit 0', () => {
    expect(runHealthcheck()).toBe(0);
  });

  it('holds the compiled server as one tree and no TypeScript source', () => {
    const listing = spawnSync(
      'find',
      ['.', '-path', './node_modules', '-prune', '-o', '-type', 'f', '-print'],
      {
        cwd: folder,
        encoding: 'utf8',
      },
    ).stdout;
    expect(listing).toContain('./dist/lib/server/start.js');
    expect(listing).not.toMatch(/\.tsx?$/m);
  });

  it('holds no .env file, not even one the standalone output copied along', () => {
    const envFiles = spawnSync('find', ['.', '-name', '.env*', '-type', 'f'], {
      cwd: folder,
      encoding: 'utf8',
    })
      .stdout.split('\n')
      .filter(Boolean);
    expect(envFiles.filter((file) => !file.endsWith('/.env.example'))).toEqual([]);
  });

  it('shuts down cleanly on SIGTERM, and the HEALTHCHECK then fails', async () => {
    expect(await server.stop()).toBe(0);
    expect(runHealthcheck()).toBe(1);
  });
});
