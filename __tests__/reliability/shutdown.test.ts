// SIGTERM in the middle of load: no request fails during the drain, and the process exits 0.
import autocannon from 'autocannon';
import { PRODUCTION_DIST } from '../support/paths';
import { startServer } from '../support/server';
import { recordResult } from '../support/results';

const DRAIN_MS = 3000;

describe('SIGTERM under load', () => {
  it('serves every request during the drain at 100 connections and exits 0', async () => {
    const server = await startServer({
      distDir: PRODUCTION_DIST,
      env: { SHUTDOWN_DRAIN_MS: String(DRAIN_MS), SHUTDOWN_TIMEOUT_MS: '5000' },
    });
    // One load per path, so each answer is checked against that path's documented one: liveness
    // and the 404 page never change while draining; only /api/health turns 503.
    const EXPECTED: Record<string, number[]> = {
      '/api/health/live': [200],
      '/missing-page': [404],
      '/api/health': [200, 503],
    };
    const unexpected: string[] = [];
    const seen: Record<string, Set<number>> = {};
    let errors = 0;
    const loads = Object.entries(EXPECTED).map(([path, allowed]) => {
      seen[path] = new Set();
      let finish: (result: autocannon.Result) => void = () => {};
      const finished = new Promise<autocannon.Result>((resolve) => (finish = resolve));
      // With a callback autocannon returns its running instance, whose events count every answer.
      const instance = autocannon(
        { url: `${server.url}${path}`, connections: 33, duration: 30, timeout: 10 },
        (_error, result) => finish(result),
      );
      instance.on('response', (_client: unknown, statusCode: number) => {
        seen[path]!.add(statusCode);
        if (!allowed.includes(statusCode)) unexpected.push(`${path} → ${statusCode}`);
      });
      instance.on('reqError', () => (errors += 1));
      return { instance, finished };
    });

    await new Promise((resolve) => setTimeout(resolve, 2000));
    server.child.kill('SIGTERM');
    // Stop the load just before the drain ends; after it, the server stops accepting by design.
    await new Promise((resolve) => setTimeout(resolve, DRAIN_MS - 500));
    loads.forEach(({ instance }) => instance.stop());
    const results = await Promise.all(loads.map(({ finished }) => finished));
    const result = {
      requests: { total: results.reduce((sum, r) => sum + r.requests.total, 0) },
      latency: { max: Math.max(...results.map((r) => r.latency.max)) },
    };
    const code = await server.exited;
    recordResult({
      scenario: 'shutdown: SIGTERM under 100 connections',
      requests: result.requests.total,
      failures: errors + unexpected.length,
      worstLatencyMs: result.latency.max,
      note: `drain ${DRAIN_MS} ms, exit ${code}`,
    });
    expect(errors).toBe(0);
    expect(unexpected).toEqual([]);
    // The drain was seen: /api/health answered 503 once SIGTERM arrived.
    expect([...seen['/api/health']!].sort()).toEqual([200, 503]);
    expect(result.requests.total).toBeGreaterThan(1000);
    expect(code).toBe(0);
  });
});
