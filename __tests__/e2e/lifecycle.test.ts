// Readiness under a blocked event loop, and SIGTERM under a steady stream of requests.
import path from 'node:path';
import { rawRequest } from '../support/http';
import { FIXTURE_DIST } from '../support/paths';
import { startServer } from '../support/server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a blocked event loop', () => {
  it('turns readiness to warn or fail while liveness still answers', async () => {
    const preload = path.join(__dirname, 'fixtures/block-event-loop.js');
    const server = await startServer({ distDir: FIXTURE_DIST, nodeOptions: `--require ${preload}` });
    try {
      server.child.kill('SIGUSR2');
      const deadline = Date.now() + 8000;
      let readiness: {
        status: number;
        body: { status: string; checks: Record<string, { status: string }[]> };
      } | null = null;
      let livenessAnswers = 0;
      while (Date.now() < deadline) {
        const live = await rawRequest(server.url, '/api/health/live');
        if (live.status === 200) livenessAnswers += 1;
        const ready = await rawRequest(server.url, '/api/health/ready');
        const body = JSON.parse(ready.body);
        if (body.status !== 'pass') {
          readiness = { status: ready.status, body };
          break;
        }
      }
      expect(livenessAnswers).toBeGreaterThan(0);
      expect(readiness).not.toBeNull();
      expect(['warn', 'fail']).toContain(readiness!.body.status);
      expect(readiness!.status).toBe(readiness!.body.status === 'fail' ? 503 : 200);
      expect(readiness!.body.checks['eventloop:delay']![0]!.status).not.toBe('pass');
      // The transition is logged once as a JSON line.
      await sleep(100);
      expect(server.output()).toMatch(/"event":"health\.(warn|fail)"/);
    } finally {
      await server.stop();
    }
  });
});

describe('SIGTERM under load', () => {
  it('fails readiness at once, serves every request during the drain, finishes in-flight work, exits 0', async () => {
    const drainMs = 1500;
    const server = await startServer({
      distDir: FIXTURE_DIST,
      env: { SHUTDOWN_DRAIN_MS: String(drainMs), SHUTDOWN_TIMEOUT_MS: '5000' },
    });

    let loadRunning = true;
    const outcomes = { ok: 0, failed: [] as string[] };
    const PATHS = ['/api/health/live', '/missing-page', '/__fixtures__/slow?ms=20'];
    const worker = async (index: number) => {
      let i = index;
      while (loadRunning) {
        const target = PATHS[i++ % PATHS.length]!;
        try {
          const res = await rawRequest(server.url, target);
          if ([200, 404].includes(res.status)) outcomes.ok += 1;
          else outcomes.failed.push(`${target} → ${res.status}`);
        } catch (error) {
          outcomes.failed.push(`${target} → ${(error as Error).message}`);
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, i) => worker(i));
    await sleep(300);

    // A slow request that is still running when the server stops accepting connections.
    const inFlight = rawRequest(server.url, `/__fixtures__/slow?ms=${drainMs + 1000}`);
    await sleep(50);

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    let notReadyAfterMs = Infinity;
    while (Date.now() - signalledAt < 1000) {
      const res = await rawRequest(server.url, '/api/health/ready');
      if (res.status === 503) {
        notReadyAfterMs = Date.now() - signalledAt;
        break;
      }
    }
    const live = await rawRequest(server.url, '/api/health/live');

    // Keep the load on until just before the drain ends; after it, connections are refused by design.
    await sleep(Math.max(0, drainMs - 300 - (Date.now() - signalledAt)));
    loadRunning = false;
    await Promise.all(workers);

    const slow = await inFlight;
    const code = await server.exited;
    process.stdout.write(
      `[e2e] SIGTERM: readiness 503 after ${notReadyAfterMs} ms; ${outcomes.ok} requests served, ${outcomes.failed.length} failed\n`,
    );

    expect(notReadyAfterMs).toBeLessThan(100);
    expect(live.status).toBe(200);
    expect(outcomes.failed).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(50);
    expect(slow.status).toBe(200);
    expect(slow.body).toContain(`"waited":${drainMs + 1000}`);
    expect(code).toBe(0);
    expect(server.output()).toMatch(/"event":"lifecycle\.draining"/);
    expect(server.output()).toMatch(/"event":"lifecycle\.closed"/);
  });

  it('exits at once on a second signal', async () => {
    const server = await startServer({ distDir: FIXTURE_DIST, env: { SHUTDOWN_DRAIN_MS: '10000' } });
    server.child.kill('SIGTERM');
    await sleep(200);
    const before = Date.now();
    server.child.kill('SIGTERM');
    const code = await server.exited;
    expect(Date.now() - before).toBeLessThan(2000);
    expect(code).toBe(143);
  });
});
