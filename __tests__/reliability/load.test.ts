// 30 s at 100 connections on liveness and on a missing page: no errors, no unexpected status, and
// resident memory that does not keep growing.
import { readFileSync } from 'node:fs';
import { load } from '../../bench/lib/load';
import { PRODUCTION_DIST } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';
import { recordResult } from '../support/results';

const SECONDS = Number(process.env.RELIABILITY_LOAD_SECONDS) || 30;
const CONNECTIONS = 100;
/** Growth allowed over a whole run; a leak of even 1 KiB per request would blow through it. */
const MAX_RSS_GROWTH_MIB = 150;

function rssMiB(pid: number | undefined): number {
  const kib = Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1]);
  return kib / 1024;
}

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
      note: `${Math.round(result.rps)} req/s; RSS ${before.toFixed(0)} → ${after.toFixed(0)} MiB`,
    });
    expect(result.errors).toBe(0);
    expect(unexpected).toBe(0);
    expect(result.requests).toBeGreaterThan(SECONDS * 100);
    expect(after - before).toBeLessThan(MAX_RSS_GROWTH_MIB);
  });
});
