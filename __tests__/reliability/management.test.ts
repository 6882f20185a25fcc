// The management listener (/livez, /readyz on MANAGEMENT_PORT, served by a worker thread) against a
// main event loop that is busy or wedged: probed as Kubernetes probes (a fresh connection, 2 s
// timeout), beside the public /api/health/live for comparison. Pages of the fixture build really
// burn CPU (/__fixtures__/busy: 40 ms per render) or never return (/api/__fixtures__/wedge).
import { readFileSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { buildRequest, sendRaw } from '../support/raw-http';
import { FIXTURE_DIST } from '../support/paths';
import { recordResult } from '../support/results';
import { startServer, type RunningServer, waitForOutput } from '../support/server';

const PROBE_TIMEOUT_MS = 2000;
const PROBE_EVERY_MS = 200;
const LOAD_MS = 4000;

interface Probe {
  status: number;
  ms: number;
}

/** One probe as kubelet sends it: a fresh connection; status 0 when no answer came in time. */
async function probe(port: number, target: string): Promise<Probe> {
  const answer = await sendRaw(port, buildRequest({ target }), PROBE_TIMEOUT_MS);
  return { status: answer.ms > PROBE_TIMEOUT_MS ? 0 : answer.status, ms: answer.ms };
}

/** Probes `target` every PROBE_EVERY_MS until stopped. */
function probeEvery(port: number, target: string) {
  const probes: Probe[] = [];
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    const sent = probe(port, target).then((p) => void probes.push(p));
    inFlight.add(sent);
    void sent.finally(() => inFlight.delete(sent));
  }, PROBE_EVERY_MS);
  return {
    probes,
    stop: async () => {
      clearInterval(timer);
      await Promise.all(inFlight);
      return probes;
    },
  };
}

/** `connections` clients requesting the busy page back to back, until stopped. */
function busyLoad(port: number, connections: number) {
  let running = connections > 0;
  let served = 0;
  const agent = new Agent({ keepAlive: true, maxSockets: Math.max(1, connections) });
  const loop = async () => {
    while (running) {
      await new Promise<void>((resolve) => {
        const req = get(
          { host: '127.0.0.1', port, path: '/__fixtures__/busy', agent, timeout: 30_000 },
          (res) => {
            res.resume();
            res.on('end', () => {
              served += 1;
              resolve();
            });
            res.on('error', () => resolve());
          },
        );
        req.on('timeout', () => req.destroy());
        req.on('error', () => resolve());
      });
    }
  };
  const loops = Array.from({ length: connections }, loop);
  return {
    served: () => served,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};

describe('the management listener under a busy main loop', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startServer({ distDir: FIXTURE_DIST });
  });

  afterAll(async () => {
    await server?.stop();
  });

  it.each([0, 32, 64])(
    'answers /livez and /readyz at once with %i connections loading a 40 ms page',
    async (connections) => {
      const load = busyLoad(server.port, connections);
      // The load is on: the first renders have been served.
      const started = performance.now();
      while (connections > 0 && load.served() < connections && performance.now() - started < 10_000)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const probes = {
        livez: probeEvery(server.managementPort, '/livez'),
        readyz: probeEvery(server.managementPort, '/readyz'),
        public: probeEvery(server.port, '/api/health/live'),
      };
      await new Promise((resolve) => setTimeout(resolve, LOAD_MS));
      const [livez, readyz, publicLive] = await Promise.all([
        probes.livez.stop(),
        probes.readyz.stop(),
        probes.public.stop(),
      ]);
      const served = load.served();
      await load.stop();

      const management = [...livez, ...readyz];
      const worstMs = Math.max(...management.map((p) => p.ms));
      const readyStatuses = [...new Set(readyz.map((p) => p.status))].sort();
      const publicTimeouts = publicLive.filter((p) => p.status !== 200).length;
      recordResult({
        scenario: `management probes, ${connections} connections on a 40 ms page`,
        requests: management.length,
        failures: management.filter((p) => p.status === 0).length,
        worstLatencyMs: worstMs,
        note:
          `/livez+/readyz p50 ${percentile(
            management.map((p) => p.ms),
            50,
          ).toFixed(1)} ms, max ${worstMs.toFixed(1)} ms; ` +
          `/readyz said ${readyStatuses.join('/')}; public /api/health/live p50 ${percentile(
            publicLive.map((p) => p.ms),
            50,
          ).toFixed(0)} ms, ` +
          `max ${Math.max(...publicLive.map((p) => p.ms)).toFixed(0)} ms, ${publicTimeouts} of ${publicLive.length} failed or timed out; ${served} pages served`,
      });

      expect(livez.length).toBeGreaterThanOrEqual(10);
      // Idle, the ready server is ready on every probe, its decision made since it became ready.
      if (connections === 0) expect(readyStatuses).toEqual([200]);
      // Every probe answered, and the loop, busy as it is, is alive.
      expect(livez.map((p) => p.status).filter((s) => s !== 200)).toEqual([]);
      expect(readyz.filter((p) => p.status === 0)).toEqual([]);
      // Answered by the worker, not queued behind renders: a generous functional bound, well under
      // the 2 s probe timeout the public probe misses under the same load.
      expect(worstMs).toBeLessThan(250);
    },
  );
});

describe('the management listener’s cost', () => {
  /** The process's resident memory, in MiB (Linux). */
  const rssMiB = (pid: number) =>
    Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

  it('is a worker thread’s memory, measured against the same server without it', async () => {
    const measured: Record<'off' | 'on', number[]> = { off: [], on: [] };
    for (let round = 0; round < 3; round += 1) {
      for (const which of ['off', 'on'] as const) {
        const server = await startServer({
          distDir: FIXTURE_DIST,
          env: which === 'off' ? { MANAGEMENT_PORT: '0' } : {},
        });
        try {
          for (let i = 0; i < 50; i += 1) await probe(server.port, '/api/health/ready');
          if (which === 'on') for (let i = 0; i < 50; i += 1) await probe(server.managementPort, '/readyz');
          measured[which].push(rssMiB(server.child.pid!));
        } finally {
          await server.stop();
        }
      }
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[1]!;
    recordResult({
      scenario: 'management listener: resident memory, on against off',
      requests: 6,
      failures: 0,
      worstLatencyMs: 0,
      note: `RSS after start and 50 probes, median of 3: ${median(measured.on).toFixed(1)} MiB on, ${median(measured.off).toFixed(1)} MiB off (+${(median(measured.on) - median(measured.off)).toFixed(1)} MiB)`,
    });
    expect(measured.on.every((mib) => mib > 0)).toBe(true);
  });
});

describe('the management listener and a wedged main loop', () => {
  it('fails /livez within the wedge limit (10 s by default), and keeps answering', async () => {
    const server = await startServer({ distDir: FIXTURE_DIST });
    try {
      expect((await probe(server.managementPort, '/livez')).status).toBe(200);
      // Never answered: the request holds the main loop until the process is killed.
      void sendRaw(server.port, buildRequest({ target: '/api/__fixtures__/wedge' }), 30_000);
      const wedgedAt = performance.now();
      let failedAfterMs = -1;
      while (performance.now() - wedgedAt < 15_000) {
        const answer = await probe(server.managementPort, '/livez');
        if (answer.status === 503) {
          failedAfterMs = performance.now() - wedgedAt;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const after = [];
      for (let i = 0; i < 3; i += 1) after.push(await probe(server.managementPort, '/livez'));
      const publicProbe = await probe(server.port, '/api/health/live');
      recordResult({
        scenario: 'management /livez with the main loop wedged (LIVENESS_WEDGE_MS 10 s)',
        requests: after.length + 1,
        failures: 0,
        worstLatencyMs: Math.max(...after.map((p) => p.ms)),
        note: `failed ${failedAfterMs.toFixed(0)} ms after the wedge; public /api/health/live: ${publicProbe.status === 0 ? 'no answer in 2 s' : publicProbe.status}`,
      });
      // Not before the limit: until then a held loop may be busy, not wedged.
      expect(failedAfterMs).toBeGreaterThanOrEqual(9500);
      expect(failedAfterMs).toBeLessThan(15_000);
      expect(after.map((p) => p.status)).toEqual([503, 503, 503]);
      expect(publicProbe.status).toBe(0);
    } finally {
      server.child.kill('SIGKILL');
      await server.exited;
    }
  });
});

describe('the management listener and SIGTERM', () => {
  it('fails /readyz once SIGTERM arrives while the loop is busy, keeps /livez up, and ends with the process', async () => {
    const server = await startServer({
      distDir: FIXTURE_DIST,
      env: { SHUTDOWN_DRAIN_MS: '3000', SHUTDOWN_TIMEOUT_MS: '5000' },
    });
    const load = busyLoad(server.port, 32);
    try {
      const ready = await probe(server.managementPort, '/readyz');
      expect(ready.status).not.toBe(0);
      server.child.kill('SIGTERM');
      await waitForOutput(server, /"event":"lifecycle\.draining"/);
      const afterSignal = await probe(server.managementPort, '/readyz');
      const live = await probe(server.managementPort, '/livez');
      expect(afterSignal.status).toBe(503);
      expect(live.status).toBe(200);
    } finally {
      await load.stop();
    }
    expect(await server.exited).toBe(0);
    // The worker went with the process: nothing listens on the management port any more.
    expect((await probe(server.managementPort, '/livez')).status).toBe(0);
  });
});
