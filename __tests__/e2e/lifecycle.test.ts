// Readiness under a blocked event loop, and SIGTERM under a steady stream of requests.
import path from 'node:path';
import { rawRequest } from '../support/http';
import { FIXTURE_DIST } from '../support/paths';
import { loggedAt, startServer, waitForOutput } from '../support/server';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a blocked event loop', () => {
  it('turns readiness to warn or fail while liveness still answers', async () => {
    const preload = path.join(__dirname, '__fixtures__/block-event-loop.js');
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
      // The transition is logged as a JSON line.
      await waitForOutput(server, /"event":"health\.(warn|fail)"/);
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
    const outcomes = { ok: 0, failed: [] as string[], refused: [] as number[] };
    // Each path's one documented answer, draining or not.
    const EXPECTED: Record<string, number> = {
      '/api/health/live': 200,
      '/missing-page': 404,
      '/__fixtures__/slow?ms=20': 200,
    };
    const PATHS = Object.keys(EXPECTED);
    const worker = async (index: number) => {
      let i = index;
      while (loadRunning) {
        const target = PATHS[i++ % PATHS.length]!;
        try {
          const res = await rawRequest(server.url, target);
          if (res.status === EXPECTED[target]) outcomes.ok += 1;
          else outcomes.failed.push(`${target} → ${res.status}`);
        } catch (error) {
          const { code, message } = error as NodeJS.ErrnoException;
          // Refused, or reset before its request was read: a connection racing the stop.
          if (code === 'ECONNREFUSED' || code === 'ECONNRESET') outcomes.refused.push(Date.now());
          else outcomes.failed.push(`${target} → ${message}`);
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, i) => worker(i));
    while (outcomes.ok < 20 && outcomes.failed.length === 0) await sleep(5);
    expect((await rawRequest(server.url, '/api/health/ready')).status).toBe(200);

    // A slow request that is still running when the server stops accepting connections.
    const inFlight = rawRequest(server.url, `/__fixtures__/slow?ms=${drainMs + 1000}`);

    server.child.kill('SIGTERM');
    // Once the server says it is draining, the very next readiness probe is 503 (no grace period
    // in which a load balancer could still pick this replica), while liveness stays 200.
    await waitForOutput(server, /"event":"lifecycle\.draining"/);
    const ready = await rawRequest(server.url, '/api/health/ready');
    const live = await rawRequest(server.url, '/api/health/live');

    // Keep the load on until the drain ends: the server says so before it stops accepting, and
    // the workers stop at that line. A connection that races the stop is refused, or closed
    // before its request was read, by design: only after that line.
    await waitForOutput(server, /"event":"lifecycle\.stop_accepting"/, drainMs + 5000);
    loadRunning = false;
    await Promise.all(workers);
    const stoppedAt = loggedAt(server, 'lifecycle.stop_accepting');

    const slow = await inFlight;
    const code = await server.exited;
    process.stdout.write(`[e2e] SIGTERM: ${outcomes.ok} requests served, ${outcomes.failed.length} failed\n`);

    expect(ready.status).toBe(503);
    expect(live.status).toBe(200);
    expect(outcomes.failed).toEqual([]);
    // Refused or reset only once the server had said it stopped accepting.
    expect(outcomes.refused.filter((at) => at < stoppedAt)).toEqual([]);
    expect(outcomes.ok).toBeGreaterThan(50);
    expect(slow.status).toBe(200);
    expect(slow.body).toContain(`"waited":${drainMs + 1000}`);
    expect(code).toBe(0);
    expect(server.output()).toMatch(/"event":"lifecycle\.closed"/);
  });

  it('exits at once on a second signal', async () => {
    const server = await startServer({ distDir: FIXTURE_DIST, env: { SHUTDOWN_DRAIN_MS: '10000' } });
    server.child.kill('SIGTERM');
    await waitForOutput(server, /"event":"lifecycle\.draining"/);
    server.child.kill('SIGTERM');
    // 143 (128 + SIGTERM): the forced exit. The graceful one, 10 s of drain later, would be 0.
    expect(await server.exited).toBe(143);
    expect(server.output()).toMatch(/"event":"lifecycle\.forced_exit"/);
  });
});
