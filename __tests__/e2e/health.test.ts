// The health contract against the production server, as monitors and orchestrators call it.
import { execFileSync } from 'node:child_process';
import { rawRequest } from '../support/http';
import { buildRequest, sendRaw } from '../support/raw-http';
import { PRODUCTION_DIST } from '../support/paths';
import { type RunningServer, startServer, waitForOutput } from '../support/server';

let server: RunningServer;

// The build under test is made from this checkout: its release is SENTRY_RELEASE when set, else
// the checkout's commit, asked of git here rather than of the code under test.
const EXPECTED_RELEASE =
  process.env.SENTRY_RELEASE?.trim() ||
  execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();

beforeAll(async () => {
  // This suite checks the contract, not this machine's load: thresholds no reading here can reach
  // keep a busy CI machine from turning 'pass' into 'warn'. (Grading is unit-tested.)
  server = await startServer({
    distDir: PRODUCTION_DIST,
    env: {
      HEALTH_EVENT_LOOP_DELAY_MS_WARN: '599999',
      HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '600000',
      HEALTH_HEAP_USED_RATIO_WARN: '0.99',
      HEALTH_HEAP_USED_RATIO_FAIL: '1',
    },
  });
  process.stdout.write(`[e2e] start to first ready answer: ${server.readyAfterMs} ms\n`);
});

afterAll(async () => {
  await server?.stop();
});

const PATHS = ['/api/health', '/api/health/live', '/api/health/ready'];
/** The readiness checks of the shell itself; a product adds its own (lib/health/dependencies.ts). */
const SHELL_CHECKS = ['eventloop:delay', 'memory:utilization', 'server:lifecycle'];
type Checks = Record<string, { status: string }[]>;

/**
 * A report's status, as its checks make it: pass when all pass. A product's check that does not
 * pass here (its upstream is not running beside this test) makes it warn, or fail if critical, which
 * the report does not say; the shell's own checks pass here (thresholds above). (A critical check
 * failing here makes readiness 503, and the answers below say so: that replica is not ready.)
 */
function expectedStatus(checks: Checks) {
  const statuses = Object.values(checks).flatMap((observations) => observations.map((o) => o.status));
  if (statuses.every((status) => status === 'pass')) return 'pass';
  return expect.stringMatching(statuses.includes('fail') ? /^(warn|fail)$/ : /^warn$/);
}

const EXPECTED: Record<string, number> = {
  GET: 200,
  HEAD: 200,
  OPTIONS: 204,
  POST: 405,
  PUT: 405,
  DELETE: 405,
  PATCH: 405,
};
const CASES = PATHS.flatMap((path) =>
  Object.entries(EXPECTED).flatMap(([method, status]) => [
    [method, path, status] as const,
    [method, `${path}?_=${Date.now()}&probe=live`, status] as const,
  ]),
);

describe('health contract on the production server', () => {
  it.each(CASES)('%s %s → %i', async (method, path, status) => {
    const res = await rawRequest(server.url, path, {
      method,
      body: method === 'POST' ? '{"x":1}' : undefined,
    });
    expect(res.status).toBe(status);
    // Every error answer is private as well (lib/http/private-errors.ts).
    expect(res.headers['cache-control']).toBe(status >= 400 ? 'private, no-store' : 'no-store');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    if (status !== 200) expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    if (method === 'GET') {
      expect(res.headers['content-type']).toBe('application/health+json; charset=utf-8');
      const body = JSON.parse(res.body);
      expect(body).toEqual(
        expect.objectContaining({
          status: expectedStatus(body.checks),
          version: expect.any(String),
          releaseId: EXPECTED_RELEASE,
        }),
      );
    }
  });

  // Read at the socket: an HTTP client drops whatever follows a HEAD or 204 answer, so only the
  // bytes on the wire show whether a body was sent. (Node's server itself never writes a HEAD body;
  // that the route produces none is unit-tested in response.test.ts.)
  it.each(PATHS.flatMap((path) => [['HEAD', path] as const, ['OPTIONS', path] as const]))(
    '%s %s sends no body bytes on the wire',
    async (method, path) => {
      const answer = await sendRaw(server.port, buildRequest({ method, target: path }));
      expect(answer.status).toBe(method === 'HEAD' ? 200 : 204);
      expect(answer.body).toBe('');
    },
  );

  it.each(PATHS)('HEAD %s has the same status and headers as GET, Content-Length included', async (path) => {
    const get = await sendRaw(server.port, buildRequest({ target: path }));
    const head = await sendRaw(server.port, buildRequest({ method: 'HEAD', target: path }));
    const comparable = (headers: Record<string, string[]>) =>
      Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'date'));
    expect(head.status).toBe(get.status);
    expect(get.headers['content-length']).toEqual([String(Buffer.byteLength(get.body))]);
    expect(comparable(head.headers)).toEqual(comparable(get.headers));
  });

  it.each(['/api/health/other', '/api/health/ready/now', '/api/health/live.json'])(
    'answers 404 for %s',
    async (path) => {
      expect((await rawRequest(server.url, path)).status).toBe(404);
    },
  );

  it('reports the shell’s readiness checks, passing, and every check well-formed (a product’s too)', async () => {
    const body = JSON.parse((await rawRequest(server.url, '/api/health/ready')).body);
    expect(Object.keys(body.checks)).toEqual(expect.arrayContaining(SHELL_CHECKS));
    for (const name of SHELL_CHECKS) {
      expect(body.checks[name]).toEqual([
        expect.objectContaining({ componentType: 'system', status: 'pass', time: expect.any(String) }),
      ]);
    }
    // The health draft's shape: `component:measurement`, observations with a status and a time.
    for (const [name, observations] of Object.entries(body.checks) as [string, Record<string, unknown>[]][]) {
      expect(name).toMatch(/^[^:\s]+:[^:\s]+$/);
      expect(observations.length).toBeGreaterThan(0);
      for (const observation of observations) {
        expect(observation).toEqual(
          expect.objectContaining({
            componentType: expect.stringMatching(/^(component|datastore|system)$/),
            status: expect.stringMatching(/^(pass|warn|fail)$/),
            time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          }),
        );
        if (observation.status !== 'pass')
          expect(observation.output).toMatch(/^(timeout|connection refused|failed)$/);
      }
    }
  });

  it('does not log healthy probes', async () => {
    // A request's line may reach this pipe after its answer has reached the test: each window is
    // closed by a 404 whose own line is awaited, so every earlier line is in by then.
    const settled = async (mark: string) => {
      await rawRequest(server.url, `/health-log-mark-${mark}`);
      await waitForOutput(server, new RegExp(`"path":"/health-log-mark-${mark}"`));
      return server.output();
    };
    const before = await settled('before');
    for (let i = 0; i < 20; i += 1) await rawRequest(server.url, PATHS[i % PATHS.length]!);
    const lines = (await settled('after')).slice(before.length).split('\n').filter(Boolean);
    expect(lines).toEqual([expect.stringContaining('"path":"/health-log-mark-after"')]);
  });
});
