// /api/health is public: what a failing dependency says, and what a storm of probes costs. The
// fixture build's dependency checks (__tests__/e2e/__fixtures__/health-dependencies.ts) fail the way real
// ones do, with messages naming hosts, ports and a password; one of them connects to a gate server
// here, which counts every run.
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { rawRequest } from '../support/http';
import { FIXTURE_DIST } from '../support/paths';
import { recordResult } from '../support/results';
import { freePort, type RunningServer, startServer } from '../support/server';
import type { CheckObservation, HealthReport } from '@lib/health/types';

const PROBES = ['/api/health', '/api/health/ready', '/api/health/live'];
const BURST = 50;

/** A TCP server that counts connections and either closes each at once or holds it open. */
class Gate {
  connections = 0;
  holding = false;
  private held: Socket[] = [];
  private server: Server = createServer((socket) => {
    this.connections += 1;
    socket.on('error', () => {});
    if (this.holding) this.held.push(socket);
    else socket.end();
  });

  async listen(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return (this.server.address() as { port: number }).port;
  }

  release(): void {
    this.holding = false;
    for (const socket of this.held.splice(0)) socket.end();
  }

  close(): void {
    this.release();
    this.server.close();
  }
}

async function report(
  server: RunningServer,
  path = '/api/health',
): Promise<{ status: number; body: string; report: HealthReport }> {
  const answer = await rawRequest(server.url, path);
  return { status: answer.status, body: answer.body, report: JSON.parse(answer.body) as HealthReport };
}

function gateObservation(health: HealthReport): CheckObservation {
  return health.checks['fixture-gate:connection']![0]!;
}

async function startWithChecks(gate: Gate, refusedPort: number, reuseMs: number): Promise<RunningServer> {
  return startServer({
    distDir: FIXTURE_DIST,
    env: {
      APP_SHELL_FIXTURE_CHECKS: '1',
      APP_SHELL_FIXTURE_REFUSED_PORT: String(refusedPort),
      APP_SHELL_FIXTURE_GATE_PORT: String(await gate.listen()),
      HEALTH_CHECK_REUSE_MS: String(reuseMs),
    },
  });
}

describe('health with failing dependencies (results reused for 60 s)', () => {
  const gate = new Gate();
  let server: RunningServer;
  let refusedPort: number;

  beforeAll(async () => {
    refusedPort = await freePort();
    server = await startWithChecks(gate, refusedPort, 60_000);
  });

  afterAll(async () => {
    await server?.stop();
    gate.close();
  });

  it('names only the kind of each failure: no host, address, port, code or secret', async () => {
    const { status, body, report: health } = await report(server);
    // Non-critical failures: the report warns and the replica stays in service.
    expect(status).toBe(200);
    expect(health.status).toBe('warn');
    expect(health.checks['fixture-db:connection']![0]).toEqual(
      expect.objectContaining({ status: 'fail', output: 'connection refused' }),
    );
    expect(health.checks['fixture-cache:responseTime']![0]).toEqual(
      expect.objectContaining({ status: 'fail', output: 'timeout' }),
    );
    expect(health.checks['fixture-api:responseTime']![0]).toEqual(
      expect.objectContaining({ status: 'fail', output: 'failed' }),
    );
    expect(body).not.toContain(String(refusedPort));
    expect(body).not.toMatch(
      /127\.0\.0\.1|10\.0\.3\.7|5432|internal\.example|hunter2|ECONNREFUSED|ENOTFOUND|getaddrinfo|postgres/,
    );
  });

  it.each(PROBES)('%s: every observedValue has its observedUnit', async (path) => {
    const { report: health } = await report(server, path);
    expect(Object.keys(health.checks).length).toBeGreaterThan(0);
    const unitless = Object.entries(health.checks)
      .filter(([, list]) => list.some((o) => o.observedValue !== undefined && !o.observedUnit))
      .map(([name]) => name);
    expect(unitless).toEqual([]);
  });

  it('answers later probes from the last run while it is fresh', async () => {
    const before = gate.connections;
    const answers = [];
    for (let i = 0; i < 20; i += 1) answers.push(await report(server, '/api/health/ready'));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(answers.every((a) => gateObservation(a.report).status === 'pass')).toBe(true);
    expect(gate.connections - before).toBe(0);
  });
});

describe('health with reuse off (HEALTH_CHECK_REUSE_MS=0)', () => {
  const gate = new Gate();
  let server: RunningServer;

  beforeAll(async () => {
    server = await startWithChecks(gate, await freePort(), 0);
  });

  afterAll(async () => {
    await server?.stop();
    gate.close();
  });

  it(`runs each check once for ${BURST} concurrent probes (single-flight)`, async () => {
    // The gate holds the connection: the run stays in flight until the check's own 2 s timeout,
    // while every probe of the burst arrives.
    gate.holding = true;
    const before = gate.connections;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: BURST }, async () => {
        const sent = performance.now();
        const answer = await report(server, '/api/health/ready');
        return { ...answer, ms: performance.now() - sent };
      }),
    );
    gate.release();
    const runs = gate.connections - before;
    recordResult({
      scenario: `health: ${BURST} concurrent probes, 4 dependency checks`,
      requests: BURST,
      failures: answers.filter((a) => a.status !== 200).length,
      worstLatencyMs: Math.max(...answers.map((a) => a.ms)),
      note: `gate check runs: ${runs}; all answered in ${Math.round(performance.now() - started)} ms`,
    });
    expect(answers.map((a) => a.status)).toEqual(Array(BURST).fill(200));
    expect(answers.every((a) => gateObservation(a.report).output === 'timeout')).toBe(true);
    expect(runs).toBe(1);
  });

  it('runs again for each probe after the last run finished', async () => {
    const before = gate.connections;
    for (let i = 1; i <= 3; i += 1) {
      const { report: health } = await report(server, '/api/health/ready');
      expect(gateObservation(health).status).toBe('pass');
      expect(gate.connections - before).toBe(i);
    }
  });
});
