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
    let finish: (result: autocannon.Result) => void = () => {};
    const finished = new Promise<autocannon.Result>((resolve) => (finish = resolve));
    // With a callback autocannon returns its running instance, whose events count every answer.
    const instance = autocannon(
      {
        url: server.url,
        connections: 100,
        duration: 30,
        timeout: 10,
        requests: [{ path: '/api/health/live' }, { path: '/missing-page' }, { path: '/api/health' }],
      },
      (_error, result) => finish(result),
    );
    const unexpected: number[] = [];
    // 503 is /api/health's documented answer once draining starts.
    instance.on('response', (_client: unknown, statusCode: number) => {
      if (![200, 404, 503].includes(statusCode)) unexpected.push(statusCode);
    });
    let errors = 0;
    instance.on('reqError', () => (errors += 1));

    await new Promise((resolve) => setTimeout(resolve, 2000));
    server.child.kill('SIGTERM');
    // Stop the load just before the drain ends; after it, the server stops accepting by design.
    await new Promise((resolve) => setTimeout(resolve, DRAIN_MS - 500));
    instance.stop();
    const result = await finished;
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
    expect(result.requests.total).toBeGreaterThan(1000);
    expect(code).toBe(0);
  });
});
