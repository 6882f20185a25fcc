// "No stranger can starve the probes": each attack a security review ran against a production
// build, as a scenario, with readiness probed throughout as Kubernetes probes it (every 250 ms, a
// 2 s timeout). Each row reports the slowest probe, the failures and the attack's own figures.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect, type Socket } from 'node:net';
import path from 'node:path';
import { QUERY_MAX_PARAMS } from '@lib/http/query-bound';
import { cpuMs } from '../support/process-cpu';
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { buildRequest, type RawAnswer, sendRaw } from '../support/raw-http';
import { probeReadiness, type ProbeSummary } from '../support/readiness-probe';
import { type ReportingStack, startReportingStack } from '../support/reporting-stack';
import { recordResult } from '../support/results';
import { freePort, type RunningServer, startServer } from '../support/server';

/** How long each flood runs: long enough for 20-odd probes. */
const FLOOD_MS = 6000;
/** The bound on the slowest readiness probe during a flood. */
const SLOWEST_PROBE_MS = 500;

/** CPU time (user + system) a process has used, in ms, from /proc; null once it is gone. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const probeNote = (p: ProbeSummary) =>
  `readiness: ${p.probes} probes, ${p.failures} failed, slowest ${Math.round(p.slowestMs)} ms`;

/** Runs `attack` in `clients` loops for FLOOD_MS while readiness is probed. */
async function flood(
  port: number,
  clients: number,
  attack: (client: number, round: number) => Promise<RawAnswer>,
) {
  const probing = probeReadiness(port);
  const until = performance.now() + FLOOD_MS;
  const statuses: number[] = [];
  await Promise.all(
    Array.from({ length: clients }, async (_unused, client) => {
      for (let round = 0; performance.now() < until; round += 1)
        statuses.push((await attack(client, round)).status);
    }),
  );
  return { probes: await probing.stop(), statuses };
}

describe('hostile query strings and junk envelopes (the reporting build)', () => {
  let stack: ReportingStack;

  beforeAll(async () => {
    stack = await startReportingStack();
  });

  afterAll(async () => {
    await stack?.stop();
  });

  const QUERIES: [string, string][] = [
    ['health, `a&` × 7,500', `/api/health/live?${'a&'.repeat(7500)}`],
    ['readiness, `a=1&` × 3,000', `/api/health/ready?${'a=1&'.repeat(3000)}`],
    ['an API route, `a&` × 7,500', `/api/__fixtures__/query-count?${'a&'.repeat(7500)}`],
    [
      `an API route, ${QUERY_MAX_PARAMS} distinct keys (the most allowed)`,
      `/api/__fixtures__/query-count?${Array.from({ length: QUERY_MAX_PARAMS }, (_u, i) => `k${i}=1`).join('&')}`,
    ],
    ['an unknown API path, `a=1&` × 3,000', `/api/nope?${'a=1&'.repeat(3000)}`],
    ['a page, `a&` × 7,500', `/nope?${'a&'.repeat(7500)}`],
  ];

  it('answers each hostile query within max(50 ms, 10× a plain probe), never with a 5xx', async () => {
    const plain: number[] = [];
    for (let i = 0; i < 21; i += 1)
      plain.push((await sendRaw(stack.server.port, buildRequest({ target: '/api/health/live' }))).ms);
    const bound = Math.max(50, 10 * median(plain));
    for (const [name, target] of QUERIES) {
      const answers: RawAnswer[] = [];
      for (let i = 0; i < 5; i += 1) answers.push(await sendRaw(stack.server.port, buildRequest({ target })));
      const ms = answers.map((a) => a.ms);
      recordResult({
        scenario: `hostile query: ${name}`,
        requests: answers.length,
        failures: answers.filter((a) => a.status >= 500 || a.status === 0).length,
        worstLatencyMs: Math.max(...ms),
        note: `answered ${answers[0]!.status}; median ${median(ms).toFixed(1)} ms against a bound of ${bound.toFixed(0)} ms (plain probe ${median(plain).toFixed(1)} ms)`,
      });
      expect({ name, statuses: answers.map((a) => a.status) }).toEqual({
        name,
        statuses: answers.map(() => expect.any(Number)),
      });
      for (const answer of answers) expect(answer.status).toBeGreaterThanOrEqual(200);
      for (const answer of answers) expect(answer.status).toBeLessThan(500);
      expect(median(ms)).toBeLessThanOrEqual(bound);
    }
    // Refused queries are told so, in the form their client reads.
    const api = await sendRaw(stack.server.port, buildRequest({ target: QUERIES[2]![1] }));
    expect(api.status).toBe(414);
    expect(api.headers['content-type']).toEqual(['application/problem+json']);
    const page = await sendRaw(stack.server.port, buildRequest({ target: QUERIES[5]![1] }));
    expect(page.status).toBe(414);
    expect(page.body).toContain('Sorry, this web address or request cannot be used');
  });

  it('keeps readiness answering while 2 clients send hostile queries', async () => {
    const { probes, statuses } = await flood(stack.server.port, 2, (_client, round) =>
      sendRaw(stack.server.port, buildRequest({ target: QUERIES[round % QUERIES.length]![1] })),
    );
    recordResult({
      scenario: 'hostile queries: 2 clients for 6 s',
      requests: statuses.length + probes.probes,
      failures: statuses.filter((s) => s >= 500 || s === 0).length + probes.failures,
      worstLatencyMs: probes.slowestMs,
      note: `${statuses.length} hostile requests; ${probeNote(probes)}`,
    });
    expect(statuses.filter((s) => s >= 500 || s === 0)).toEqual([]);
    expect(probes.probes).toBeGreaterThan(15);
    expect(probes.failures).toBe(0);
    expect(probes.slowestMs).toBeLessThanOrEqual(SLOWEST_PROBE_MS);
  });

  const MIB = 1024 * 1024;
  const junkLines = (header: string) =>
    `${header}\n${'1\n'.repeat(Math.floor((MIB - header.length - 1) / 2))}`;
  const JUNK: [string, () => string][] = [
    ['1 MiB of lines after `{}`', () => junkLines('{}')],
    ['1 MiB of lines after our DSN', () => junkLines(`{"dsn":"${stack.build.dsn}"}`)],
    ['1 MiB of lines after a foreign DSN', () => junkLines('{"dsn":"https://key@ingest.example.org/9"}')],
    [
      '45,000 empty event items',
      () => `{"dsn":"${stack.build.dsn}"}\n${'{"type":"event"}\n{}\n'.repeat(45_000)}`,
    ],
    [
      'one event of 1 MiB that is not JSON',
      () => `{"dsn":"${stack.build.dsn}"}\n{"type":"event"}\n${'x'.repeat(MIB - 200)}`,
    ],
  ];

  it('refuses each 1 MiB junk envelope in at most 100 ms with an answer of at most 1 KiB', async () => {
    const before = stack.ingest!.envelopes.length;
    for (const [name, make] of JUNK) {
      const body = make();
      expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MIB);
      const answers: RawAnswer[] = [];
      for (let i = 0; i < 3; i += 1)
        answers.push(
          await sendRaw(
            stack.server.port,
            buildRequest({ method: 'POST', target: stack.build.tunnelPath, body }),
          ),
        );
      const ms = answers.map((a) => a.ms);
      const bodyBytes = Math.max(...answers.map((a) => Buffer.byteLength(a.body)));
      recordResult({
        scenario: `junk envelope: ${name}`,
        requests: answers.length,
        failures: answers.filter((a) => a.status < 400 || a.status >= 500).length,
        worstLatencyMs: Math.max(...ms),
        note: `answered ${answers[0]!.status} in a median ${median(ms).toFixed(1)} ms (upload included); answer body ${bodyBytes} B`,
      });
      for (const answer of answers) expect([400, 403]).toContain(answer.status);
      expect(median(ms)).toBeLessThanOrEqual(100);
      expect(bodyBytes).toBeLessThanOrEqual(1024);
    }
    expect(stack.ingest!.envelopes.length).toBe(before);
  });

  it('keeps readiness answering while 8 clients send junk envelopes', async () => {
    const bodies = JUNK.map(([, make]) => make());
    const { probes, statuses } = await flood(stack.server.port, 8, (client, round) =>
      sendRaw(
        stack.server.port,
        buildRequest({
          method: 'POST',
          target: stack.build.tunnelPath,
          body: bodies[(client + round) % bodies.length],
        }),
      ),
    );
    recordResult({
      scenario: 'junk envelopes: 8 clients for 6 s',
      requests: statuses.length + probes.probes,
      failures: statuses.filter((s) => s >= 500 || s === 0).length + probes.failures,
      worstLatencyMs: probes.slowestMs,
      note: `${statuses.length} junk envelopes (about ${((statuses.length * 1024 * 1024) / FLOOD_MS / 1000).toFixed(0)} MB/s); ${probeNote(probes)}`,
    });
    expect(statuses.filter((s) => s >= 500 || s === 0)).toEqual([]);
    expect(probes.failures).toBe(0);
    expect(probes.slowestMs).toBeLessThanOrEqual(SLOWEST_PROBE_MS);
  });

  it('accepts real reports while 40 clients trickle a byte a second into the tunnel and reconnect', async () => {
    const port = stack.server.port;
    let trickling = true;
    let connections = 0;
    let cutOff = 0;
    /** One slow uploader: a report-sized upload sent a byte a second, begun again whenever it is cut off. */
    const trickler = async () => {
      while (trickling) {
        connections += 1;
        await new Promise<void>((resolve) => {
          const socket: Socket = connect(port, '127.0.0.1');
          let timer: NodeJS.Timeout | undefined;
          socket.on('error', () => {});
          socket.on('close', () => {
            clearInterval(timer);
            if (trickling) cutOff += 1;
            resolve();
          });
          socket.once('connect', () => {
            socket.write(
              `POST ${stack.build.tunnelPath} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 4000\r\n\r\n`,
            );
            timer = setInterval(() => (trickling ? socket.write('x') : socket.destroy()), 1000);
          });
        });
      }
    };
    const tricklers = Array.from({ length: 40 }, trickler);
    const probing = probeReadiness(port);
    await sleep(3000); // every trickler connected, and some cut off already
    const reports: number[] = [];
    for (let i = 0; i < 10; i += 1) {
      const body = `{"event_id":"${String(i).padStart(32, 'd')}","dsn":"${stack.build.dsn}"}\n{"type":"event"}\n{"message":"real report ${i} among tricklers"}\n`;
      reports.push(
        (await sendRaw(port, buildRequest({ method: 'POST', target: stack.build.tunnelPath, body }))).status,
      );
      await sleep(800);
    }
    trickling = false;
    const probes = await probing.stop();
    await Promise.all(tricklers);
    const accepted = reports.filter((s) => s === 200).length;
    recordResult({
      scenario: 'slow uploads: 40 clients at 1 B/s, reconnecting',
      requests: reports.length + probes.probes,
      failures: reports.length - accepted + probes.failures,
      worstLatencyMs: probes.slowestMs,
      note: `${accepted} of 10 real reports accepted; ${connections} slow connections, ${cutOff} cut off by their deadline; ${probeNote(probes)}`,
    });
    expect(accepted).toBeGreaterThanOrEqual(8);
    // The tricklers were really cut off and came back, not merely left waiting.
    expect(cutOff).toBeGreaterThanOrEqual(40);
    expect(probes.failures).toBe(0);
  });
});

describe('MAX_CONNECTIONS=20 held by idle keep-alive connections', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ distDir: PRODUCTION_DIST, env: { MAX_CONNECTIONS: '20' } });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('answers 10 of 10 new probes, closing the connections idle the longest', async () => {
    const idle: { socket: Socket; closed: boolean }[] = [];
    for (let i = 0; i < 20; i += 1) {
      const entry = { socket: connect(server.port, '127.0.0.1'), closed: false };
      entry.socket.on('error', () => {});
      entry.socket.on('close', () => (entry.closed = true));
      await new Promise<void>((resolve) => {
        let text = '';
        entry.socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1');
          if (text.endsWith('}')) resolve();
        });
        // One request, kept alive, and then nothing.
        entry.socket.write('GET /api/health/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      });
      idle.push(entry);
    }
    const probes: RawAnswer[] = [];
    for (let i = 0; i < 10; i += 1)
      probes.push(await sendRaw(server.port, buildRequest({ target: '/api/health/live' }), 2000));
    const answered = probes.filter((p) => p.status === 200).length;
    const closed = idle.filter((e) => e.closed).length;
    recordResult({
      scenario: 'MAX_CONNECTIONS=20 held by 20 idle keep-alive connections',
      requests: probes.length,
      failures: probes.length - answered,
      worstLatencyMs: Math.max(...probes.map((p) => p.ms)),
      note: `${answered} of 10 new liveness probes answered; ${closed} idle connections closed to admit them (the oldest first)`,
    });
    expect(answered).toBe(10);
    // The oldest went first.
    expect(idle.slice(0, closed).every((e) => e.closed)).toBe(true);
    expect(server.output()).toContain('"event":"server.idle_connections_closed"');
    for (const e of idle) e.socket.destroy();
  });
});

describe('log pipes whose reader has gone', () => {
  it('still drains and exits on SIGTERM, within its drain and shutdown timeouts', async () => {
    const DRAIN_MS = 500;
    const SHUTDOWN_TIMEOUT_MS = 1000;
    const port = await freePort();
    const probeFile = path.join(mkdtempSync(path.join(tmpdir(), 'uncaught-')), 'count');
    const child = spawn(process.execPath, [path.join(ROOT, 'dist/lib/server/start.js')], {
      cwd: ROOT,
      env: {
        ...process.env,
        NEXT_DIST_DIR: PRODUCTION_DIST,
        HOST: '127.0.0.1',
        PORT: String(port),
        MANAGEMENT_PORT: String(await freePort()),
        SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
        SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
        NODE_OPTIONS: `--require ${path.join(ROOT, '__tests__/support/uncaught-probe.cjs')}`,
        UNCAUGHT_PROBE_FILE: probeFile,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    let output = '';
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
    try {
      const deadline = performance.now() + 30_000;
      while (!output.includes('"event":"lifecycle.ready"') && performance.now() < deadline) await sleep(20);
      expect(output).toContain('"event":"lifecycle.ready"');
      // The reader goes (a log collector restarts, `| head` has read enough): every later write fails.
      child.stdout!.destroy();
      child.stderr!.destroy();
      // CPU time the process uses from SIGTERM until it exits: a process that spins on failed
      // writes uses all of it; one that drains quietly, a small part.
      const cpuBefore = cpuMs(child.pid!);
      let cpuLast = cpuBefore;
      const sampler = setInterval(() => (cpuLast = cpuMs(child.pid!) ?? cpuLast), 20);
      const signalled = performance.now();
      child.kill('SIGTERM');
      const limit = DRAIN_MS + SHUTDOWN_TIMEOUT_MS + 2000; // + the flush cap (FLUSH_TIMEOUT_MS)
      const code = await Promise.race([exited, sleep(limit + 5000).then(() => 'still running' as const)]);
      const took = performance.now() - signalled;
      clearInterval(sampler);
      const cpuUsed = (cpuLast ?? 0) - (cpuBefore ?? 0);
      // A failed write that nothing handled becomes an uncaught exception, whose handler logs
      // again: the loop the review saw spin. The errors must be absorbed where they arise.
      const uncaught = Number(readFileSync(probeFile, 'utf8'));
      recordResult({
        scenario: 'SIGTERM with both log pipes closed',
        requests: 1,
        failures: code === 0 ? 0 : 1,
        worstLatencyMs: took,
        note: `exited ${String(code)} ${Math.round(took)} ms after SIGTERM (drain ${DRAIN_MS} + shutdown ${SHUTDOWN_TIMEOUT_MS} + flush 2000 ms allowed), using ${cpuUsed} ms of CPU meanwhile; ${uncaught} uncaught exceptions`,
      });
      expect(code).toBe(0);
      expect(uncaught).toBe(0);
      expect(took).toBeLessThan(limit);
      expect(cpuBefore).not.toBeNull();
      // Spinning on failed writes would use nearly all of the drain's 500 ms.
      expect(cpuUsed).toBeLessThan(took / 4);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});
