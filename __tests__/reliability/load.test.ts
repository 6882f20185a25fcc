// 15 s at 100 connections on liveness and on a missing page: no errors, no unexpected status, and
// resident memory that does not keep growing once the server is warm. 15 s is some 250,000 requests
// on a missing page and 430,000 on liveness here, each many times the 41,000 (40 MiB in KiB) past
// which a leak of 1 KiB a request breaks the bound; 30 s found nothing more and cost 30 s of every
// run (RELIABILITY_LOAD_SECONDS=30 to run longer).
import { load } from '../../bench/lib/load';
import { PRODUCTION_DIST } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';
import { recordResult } from '../support/results';
import { rssMiB } from '../support/memory';

const SECONDS = Number(process.env.RELIABILITY_LOAD_SECONDS) || 15;
const WARM_UP_SECONDS = 10;
const CONNECTIONS = 100;
/**
 * Growth allowed over the measured run, after a warm-up: V8 and the allocator size themselves
 * during the first seconds of load (about +80 MiB on Node 20 and +250 MiB on Node 24, measured
 * here), then hold. The test also requires more than this many KiB of requests, so a leak of
 * 1 KiB per request would exceed it.
 */
const MAX_RSS_GROWTH_MIB = 40;

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ distDir: PRODUCTION_DIST });
});

afterAll(async () => {
  await server?.stop();
});

describe(`${SECONDS} s at ${CONNECTIONS} connections`, () => {
  it.each([
    ['/api/health/live', '2xx'],
    ['/missing-page', '4xx'],
  ])('%s: zero errors, only %s answers, bounded memory', async (path, expected) => {
    await load({ url: `${server.url}${path}`, connections: CONNECTIONS, seconds: WARM_UP_SECONDS });
    const before = rssMiB(server.child.pid);
    const result = await load({ url: `${server.url}${path}`, connections: CONNECTIONS, seconds: SECONDS });
    const after = rssMiB(server.child.pid);
    const unexpected = Object.entries(result.statuses)
      .filter(([status]) => status !== expected)
      .reduce((sum, [, count]) => sum + count, 0);
    recordResult({
      scenario: `load: ${path}, ${CONNECTIONS} connections, ${SECONDS} s`,
      requests: result.requests,
      failures: result.errors + unexpected,
      worstLatencyMs: result.max,
      note: `${Math.round(result.rps)} req/s; RSS after warm-up ${before.toFixed(0)} → ${after.toFixed(0)} MiB`,
    });
    expect(result.errors).toBe(0);
    expect(unexpected).toBe(0);
    expect(result.requests).toBeGreaterThan(MAX_RSS_GROWTH_MIB * 1024);
    expect(after - before).toBeLessThan(MAX_RSS_GROWTH_MIB);
  });
});
