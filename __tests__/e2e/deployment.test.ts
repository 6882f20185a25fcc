// The container image's contents, without a Docker engine: build standalone output, assemble it
// with the same script the Dockerfile runs, and boot it from a folder with no node_modules above it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { rawRequest } from './support/http';
import { ROOT } from './support/paths';
import { type RunningServer, startServer } from './support/server';

const DIST = '.next-standalone';
let folder: string;
let server: RunningServer;

beforeAll(async () => {
  const build = spawnSync(process.execPath, [require.resolve('next/dist/bin/next'), 'build', '--webpack'], {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_OUTPUT: 'standalone', NEXT_DIST_DIR: DIST },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (build.status !== 0) throw new Error(`standalone build failed (exit ${build.status})`);
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
    const script = page.body.match(/src="(\/_next\/static\/[^"]+\.js)"/)![1]!;
    const asset = await rawRequest(server.url, script);
    expect(asset.status).toBe(200);
    expect(asset.headers['cache-control']).toContain('immutable');
  });

  it('answers the HEALTHCHECK script with exit 0', () => {
    const check = spawnSync(process.execPath, [path.join(folder, 'lib/server/healthcheck.js')], {
      env: { ...process.env, PORT: String(server.port) },
      timeout: 10_000,
    });
    expect(check.status).toBe(0);
  });

  it('shuts down cleanly on SIGTERM', async () => {
    expect(await server.stop()).toBe(0);
    const check = spawnSync(process.execPath, [path.join(folder, 'lib/server/healthcheck.js')], {
      env: { ...process.env, PORT: String(server.port) },
      timeout: 10_000,
    });
    expect(check.status).toBe(1);
  });
});
