// Instances killed while visitors browse (issue "When an instance dies, no visitor notices"): three
// instances of one build behind the shipped HAProxy configuration (deploy/haproxy/haproxy.cfg, its
// own check timings), 24 keep-alive visitors asking for a 30 ms server-rendered page, a missing page
// and liveness, and every 4 s one instance killed with SIGKILL (as the OOM killer or a lost node
// does) and started again at once, 12 times. Every GET must be answered: the balancer sends again,
// on another instance, a GET whose instance died holding it. Two more visitors POST meanwhile, each
// POST with its own id, which the fixture prints on arrival: no id may arrive twice, since a POST
// the instance may have started on is never sent again.
import { Agent, request } from 'node:http';
import { type Balancer, startBalancer } from '../support/balancer';
import { FIXTURE_DIST } from '../support/paths';
import { recordResult } from '../support/results';
import { freePort, type RunningServer, startServer } from '../support/server';

const KILLS = Number(process.env.INSTANCE_DEATH_KILLS) || 12;
const KILL_EVERY_MS = 4000;
const VISITORS_PER_PATH = 8;
const POSTING_VISITORS = 2;
const PATHS = {
  '/__fixtures__/slow?ms=30': 200,
  '/missing-page': 404,
  '/api/health/live': 200,
} as const;

interface Slot {
  port: number;
  managementPort: number;
  /** Every process this slot has run, the killed ones included: their output counts too. */
  runs: RunningServer[];
}

const start = (slot: Slot) =>
  startServer({
    distDir: FIXTURE_DIST,
    port: slot.port,
    env: { MANAGEMENT_PORT: String(slot.managementPort), SHUTDOWN_DRAIN_MS: '0' },
  });

/** One request on the keep-alive agent: its status, or the error's code when none came whole. */
function ask(agent: Agent, base: string, method: 'GET' | 'POST', path: string): Promise<number | string> {
  return new Promise((resolve) => {
    // A POST carries a small body of known length, as a form or an API call does: a balancer could
    // hold it whole and send it again (a streamed body it could not).
    const body = method === 'POST' ? '{"order":1}' : undefined;
    const headers = body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {};
    const req = request(`${base}${path}`, { method, agent, headers, timeout: 60_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end(body);
  });
}

describe('instances killed under load', () => {
  const slots: Slot[] = [];
  let balancer: Balancer | undefined;
  afterAll(async () => {
    await balancer?.stop();
    await Promise.all(slots.flatMap((slot) => slot.runs.map((run) => run.stop())));
  });

  it(`answers every GET through ${KILLS} SIGKILLs behind the shipped HAProxy configuration, and sends no POST twice`, async () => {
    for (let i = 0; i < 3; i += 1) {
      const slot: Slot = { port: await freePort(), managementPort: await freePort(), runs: [] };
      slot.runs.push(await start(slot));
      slots.push(slot);
    }
    balancer = await startBalancer(
      Object.fromEntries(slots.map((slot, i) => [`app${i + 1}`, `http://127.0.0.1:${slot.port}`])),
      { checks: null },
    );
    const base = balancer.url;

    const agent = new Agent({ keepAlive: true, maxSockets: 3 * VISITORS_PER_PATH + POSTING_VISITORS });
    const failed: string[] = [];
    let gets = 0;
    let slowestMs = 0;
    let posts = 0;
    let postsAnswered = 0;
    let loading = true;
    const visit = async (path: keyof typeof PATHS) => {
      while (loading) {
        const asked = performance.now();
        const answer = await ask(agent, base, 'GET', path);
        slowestMs = Math.max(slowestMs, performance.now() - asked);
        gets += 1;
        if (answer !== PATHS[path]) failed.push(`GET ${path}: ${answer}`);
      }
    };
    const post = async (visitor: number) => {
      while (loading) {
        posts += 1;
        const answer = await ask(
          agent,
          base,
          'POST',
          `/api/__fixtures__/post-once?ms=30&id=${visitor}-${posts}`,
        );
        if (answer === 200) postsAnswered += 1;
      }
    };
    const visitors = [
      ...Object.keys(PATHS).flatMap((path) =>
        Array.from({ length: VISITORS_PER_PATH }, () => visit(path as keyof typeof PATHS)),
      ),
      ...Array.from({ length: POSTING_VISITORS }, (_, visitor) => post(visitor)),
    ];

    const restarts: number[] = [];
    try {
      for (let kill = 0; kill < KILLS; kill += 1) {
        await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
        const slot = slots[kill % slots.length]!;
        const victim = slot.runs.at(-1)!;
        victim.child.kill('SIGKILL');
        await victim.exited;
        const started = performance.now();
        slot.runs.push(await start(slot));
        restarts.push(performance.now() - started);
      }
      await new Promise((resolve) => setTimeout(resolve, KILL_EVERY_MS));
    } finally {
      loading = false;
      await Promise.all(visitors);
      agent.destroy();
    }

    // Each POST's id, counted over the output of every process that ran.
    const arrivals = new Map<string, number>();
    for (const run of slots.flatMap((slot) => slot.runs))
      for (const [, id] of run.output().matchAll(/^fixture\.post_once (\S+)$/gm))
        arrivals.set(id!, (arrivals.get(id!) ?? 0) + 1);
    const twice = [...arrivals].filter(([, count]) => count > 1);

    const byKind = new Map<string, number>();
    for (const failure of failed) byKind.set(failure, (byKind.get(failure) ?? 0) + 1);
    const note =
      `${KILLS} SIGKILLs every ${KILL_EVERY_MS / 1000} s, 3 instances, shipped haproxy.cfg; ` +
      `${posts} POSTs (${postsAnswered} answered, ${twice.length} arrived twice); ` +
      `restart to ready ${Math.round(Math.min(...restarts))}–${Math.round(Math.max(...restarts))} ms`;
    process.stdout.write(
      `[instance death] ${gets} GETs, ${failed.length} failed ${JSON.stringify([...byKind])}; ${note}\n`,
    );
    recordResult({
      scenario: 'instances killed (SIGKILL)',
      requests: gets,
      failures: failed.length,
      worstLatencyMs: slowestMs,
      note,
    });

    expect(gets).toBeGreaterThan(1000);
    expect(posts).toBeGreaterThan(50);
    expect(arrivals.size).toBeGreaterThan(50);
    expect(twice).toEqual([]);
    expect([...byKind]).toEqual([]);
  }, 240_000);
});
