// What an operator sees of a running server: /metrics on the management listener after many
// requests to paths a stranger makes up, and one log line per request.
import { rawRequest } from '../support/http';
import { FIXTURE_DIST } from '../support/paths';
import { seededRandom } from '../support/seeded-random';
import { startServer, type RunningServer } from '../support/server';
import { dependencyChecks } from '@lib/health/dependencies';

/** A secret in a query string: it must reach no log line. */
const SECRET = 'sk_live_5f3e9a7c1b2d4e6f8a0b';
const RANDOM_PATHS = 500;

let server: RunningServer;
let metrics: string;
let publicMetricsStatus: number;
let probeStatuses: number[];
let scrapeAnswer: { status: number; contentType: string | null };
let exitCode: number | null;
/** Requests that are not healthy probes: each must have its own line. */
let logged: number;
/** The random paths asked for. */
let randomPaths: string[];

beforeAll(async () => {
  // The gauge's meaning, not this machine's load, is under test: thresholds no reading here can
  // reach keep a busy CI machine from turning 'pass' into 'warn' (as health.test.ts does).
  server = await startServer({
    distDir: FIXTURE_DIST,
    env: {
      HEALTH_EVENT_LOOP_DELAY_MS_WARN: '599999',
      HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '600000',
      HEALTH_HEAP_USED_RATIO_WARN: '0.99',
      HEALTH_HEAP_USED_RATIO_FAIL: '1',
    },
  });
  try {
    const random = seededRandom(20);
    const word = () => Math.floor(random.next() * 36 ** 6).toString(36);
    logged = 0;
    randomPaths = [];
    for (let i = 0; i < RANDOM_PATHS; i += 1) {
      const path = Array.from({ length: random.int(1, 4) }, word).join('/');
      randomPaths.push(`/${path}`);
      const query = random.int(0, 3) === 0 ? `?token=${SECRET}&page=${i}` : `?q=${word()}`;
      await rawRequest(server.url, `/${path}${query}`);
      logged += 1;
    }
    // A dynamic page with a new segment each time, and the API's unknown paths.
    for (let i = 0; i < 20; i += 1) {
      await rawRequest(server.url, `/__fixtures__/secrets/${word()}`);
      await rawRequest(server.url, `/api/${word()}`);
      logged += 2;
    }
    // The failing API route: its line carries the reference of the report.
    await rawRequest(server.url, '/api/__fixtures__/throws');
    logged += 1;
    // Healthy probes: no line.
    probeStatuses = [];
    for (const probe of ['/api/health', '/api/health/live', '/api/health/ready'])
      for (let i = 0; i < 10; i += 1) probeStatuses.push((await rawRequest(server.url, probe)).status);
    publicMetricsStatus = (await rawRequest(server.url, '/metrics')).status;
    logged += 1;
    const scrape = await fetch(`http://127.0.0.1:${server.managementPort}/metrics`);
    scrapeAnswer = { status: scrape.status, contentType: scrape.headers.get('content-type') };
    metrics = await scrape.text();
  } finally {
    exitCode = await server.stop();
  }
});

/** `name{labels} value` lines of one metric, as label objects with their value. */
function samples(name: string): { labels: Record<string, string>; value: number }[] {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .map((line) => {
      const labels: Record<string, string> = {};
      for (const [, key, value] of line.matchAll(/(\w+)="([^"]*)"/g)) labels[key!] = value!;
      return { labels, value: Number(line.slice(line.lastIndexOf(' ') + 1)) };
    });
}

function requestLines(): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((line) => line.includes('"http.request"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('/metrics on the management listener', () => {
  it('answers Prometheus text', () => {
    expect(scrapeAnswer).toEqual({
      status: 200,
      contentType: expect.stringMatching(/^text\/plain; version=0\.0\.4/),
    });
  });

  it('holds the request histogram with a few dozen series at most, however many paths were asked for', () => {
    const series = samples('http_server_request_duration_seconds_count');
    expect(series.length).toBeGreaterThan(3);
    expect(series.length).toBeLessThanOrEqual(36);
    const routes = new Set(series.map(({ labels }) => labels.http_route));
    expect(routes).toEqual(
      new Set([
        '/404',
        '/__fixtures__/secrets/[token]',
        '/api/__fixtures__/throws',
        '/api/health',
        '/api/health/live',
        '/api/health/ready',
      ]),
    );
    const notFound = series.find(
      ({ labels }) =>
        labels.http_route === '/404' &&
        labels.http_request_method === 'GET' &&
        labels.http_response_status_code === '404',
    );
    // The random paths, the unknown API paths and /metrics itself: all one series.
    expect(notFound?.value).toBeGreaterThanOrEqual(RANDOM_PATHS + 20 + 1);
    expect(
      series.find(({ labels }) => labels.http_route === '/api/__fixtures__/throws')?.labels
        .http_response_status_code,
    ).toBe('500');
  });

  it("holds Node's process metrics and the shell's own", () => {
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds_count',
      'http_server_active_requests',
    ])
      expect(samples(name).length).toBeGreaterThan(0);
    expect(samples('app_lifecycle_phase')).toContainEqual({ labels: { phase: 'ready' }, value: 1 });
    // One status at a time; 'pass' in the shell alone. A product's own check (lib/health/dependencies.ts)
    // may make it warn here, as its upstream is not running: its meaning is the product's.
    const health = samples('app_health_status');
    expect(health.map(({ labels }) => labels.status)).toEqual(['pass', 'warn', 'fail']);
    expect(health.filter(({ value }) => value === 1)).toHaveLength(1);
    expect(health.reduce((sum, { value }) => sum + value, 0)).toBe(1);
    if (dependencyChecks.length === 0) expect(health[0]!.value).toBe(1);
    expect(samples('app_health_check_status').map(({ labels }) => labels.check)).toContain('eventloop:delay');
    // The failing API route was reported (no DSN: as a log line).
    expect(samples('app_error_reports_total')).toContainEqual({
      labels: { outcome: 'logged', reason: '' },
      value: 1,
    });
  });

  it('is a 404 on the public port, like any unknown path', () => {
    expect(publicMetricsStatus).toBe(404);
  });
});

describe('the request log', () => {
  it('has one line per request, and none for the healthy probes', () => {
    expect(probeStatuses).toEqual(Array(30).fill(200));
    const lines = requestLines();
    const probes = lines.filter(({ route }) => String(route).startsWith('/api/health'));
    expect(lines.length - probes.length).toBe(logged);
    // A probe is logged only while it fails (the test's own wait for readiness, at start).
    expect(probes.filter(({ status }) => status === 200)).toEqual([]);
    expect(exitCode).toBe(0);
  });

  it('gives each line its method, scrubbed path, route, status and duration', () => {
    const lines = requestLines();
    const withSecret = lines.filter(({ path }) => String(path).includes('token='));
    expect(withSecret.length).toBeGreaterThan(50);
    for (const line of withSecret) {
      expect(line).toEqual(
        expect.objectContaining({
          method: 'GET',
          route: '/404',
          status: 404,
          durationMs: expect.any(Number),
        }),
      );
      expect(line.path).toMatch(/\?token=\[Filtered\]&page=\d+$/);
    }
    expect(lines.find(({ route }) => route === '/__fixtures__/secrets/[token]')).toEqual(
      expect.objectContaining({ status: 200, path: expect.stringMatching(/^\/__fixtures__\/secrets\/\w+$/) }),
    );
  });

  it('carries the reference of the reported error on the failed request', () => {
    const failed = requestLines().find(({ route }) => route === '/api/__fixtures__/throws');
    const report = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"server.error"'))
      .map((line) => JSON.parse(line) as { reference: string })[0];
    expect(failed).toEqual(expect.objectContaining({ level: 'error', status: 500 }));
    expect(failed?.reference).toBe(report?.reference);
    expect(failed?.reference).toEqual(expect.any(String));
  });

  it('holds no secret from a query string, in any line', () => {
    expect(server.output()).not.toContain(SECRET);
  });

  it('nor does /metrics, whatever the requests carried', () => {
    expect(metrics).not.toContain(SECRET);
    // No query string, and none of the random paths: only routes.
    expect(metrics).not.toMatch(/[?&](?:token|q|page)=/);
    expect(randomPaths.filter((path) => metrics.includes(path))).toEqual([]);
  });
});
