// Each request timed once, on a loopback server: the histogram it feeds and the line it logs.
import { EventEmitter } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Histogram, Registry } from 'prom-client';
import { setLogLevel } from '@lib/log/logger';
import { noteReference } from '@lib/reporting/node/request-reference';
import {
  createRequestObserver,
  cutUrl,
  loggedPath,
  MAX_LOGGED_PATH,
  NO_ANSWER,
  type RequestObserver,
} from '@lib/server/observe-requests';
import { until } from '../../../support/until';

let registry: Registry;
let duration: Histogram<'http_request_method' | 'http_route' | 'http_response_status_code'>;
let observer: RequestObserver;
let server: http.Server;
let base: string;
let stdout: jest.SpyInstance;
let stderr: jest.SpyInstance;
/** What the stand-in app does with a request. */
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeEach(async () => {
  registry = new Registry();
  duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'test',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    registers: [registry],
  });
  observer = createRequestObserver({
    duration: () => duration,
    publicFiles: new Set(['/robots.txt']),
    quietRoutes: new Set(['/api/health/ready']),
  });
  answer = (_req, res) => res.end('ok');
  stdout = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  server = http.createServer((req, res) => {
    observer.requestStarted(req, res);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterEach(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  jest.restoreAllMocks();
  setLogLevel('info');
});

/** Next's record of the route it matched, as Next leaves it on the request. */
function matched(req: IncomingMessage, page: string) {
  (req as unknown as Record<symbol, unknown>)[Symbol.for('NextInternalRequestMeta')] = {
    match: { definition: { page } },
  };
}

const requestLines = () =>
  [...stdout.mock.calls, ...stderr.mock.calls]
    .map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
    .filter((line) => line.event === 'http.request');

async function counted() {
  const values = (await duration.get()).values.filter((value) => value.metricName?.endsWith('_count'));
  return values.map((value) => ({ ...value.labels, count: value.value }));
}

describe('a request, once answered', () => {
  it('is one histogram observation under its route pattern, and one log line', async () => {
    answer = (req, res) => {
      matched(req, '/orders/[id]');
      res.end('order');
    };
    await (await fetch(`${base}/orders/3?sort=asc`)).text();
    await until(() => requestLines().length === 1, 2000);
    expect(await counted()).toEqual([
      {
        http_request_method: 'GET',
        http_route: '/orders/[id]',
        http_response_status_code: '200',
        count: 1,
      },
    ]);
    expect(requestLines()).toEqual([
      {
        level: 'info',
        time: expect.any(String),
        event: 'http.request',
        method: 'GET',
        path: '/orders/3?sort=asc',
        route: '/orders/[id]',
        status: 200,
        durationMs: expect.any(Number),
      },
    ]);
  });

  it('keeps any number of distinct paths to a handful of series', async () => {
    answer = (_req, res) => {
      res.statusCode = 404;
      res.end();
    };
    for (let i = 0; i < 50; i += 1) await (await fetch(`${base}/random-${i}/${i * 7}`)).text();
    expect(await counted()).toEqual([
      { http_request_method: 'GET', http_route: '/404', http_response_status_code: '404', count: 50 },
    ]);
  });

  it("logs the path with the query's secrets scrubbed", async () => {
    await (await fetch(`${base}/reset?token=s3cr3t-value&page=2`)).text();
    await until(() => requestLines().length === 1, 2000);
    const [line] = requestLines();
    expect(line!.path).toBe('/reset?token=[Filtered]&page=2');
    expect(JSON.stringify(stdout.mock.calls)).not.toContain('s3cr3t-value');
  });

  it('cuts a very long path, so a line stays small', async () => {
    await (await fetch(`${base}/orders/${'a'.repeat(10_000)}`)).text();
    await until(() => requestLines().length === 1, 2000);
    expect(requestLines()[0]!.path).toBe('/orders/…');
  });

  it('does not log a healthy probe, but does log one that fails', async () => {
    answer = (req, res) => {
      matched(req, '/api/health/ready');
      res.statusCode = req.url === '/api/health/ready?down' ? 503 : 200;
      res.end();
    };
    await (await fetch(`${base}/api/health/ready`)).text();
    await (await fetch(`${base}/api/health/ready?down`)).text();
    await until(() => requestLines().length === 1, 2000);
    expect(requestLines()).toEqual([expect.objectContaining({ status: 503, level: 'error' })]);
    // Both are timed all the same.
    expect(await counted()).toHaveLength(2);
  });

  it('does not log a beacon, whatever its answer, and times it all the same', async () => {
    answer = (req, res) => {
      if (req.url!.startsWith('/beacon')) observer.answeredAs(res, '(beacon)');
      res.statusCode = req.url === '/beacon?refused' ? 403 : 204;
      res.end();
    };
    await (await fetch(`${base}/beacon`, { method: 'POST' })).text();
    await (await fetch(`${base}/beacon?refused`, { method: 'POST' })).text();
    // A request after them, logged: once its line is there, theirs would have been too.
    await (await fetch(`${base}/after`)).text();
    await until(() => requestLines().length === 1, 2000);
    expect(requestLines()).toEqual([expect.objectContaining({ path: '/after' })]);
    expect((await counted()).filter((series) => series.http_route === '(beacon)')).toHaveLength(2);
  });

  it('carries the reference of the error reported for it, even when reported as it closes', async () => {
    answer = (req, res) => {
      res.statusCode = 500;
      // As instrumentation does for an API route: reported once the answer is done.
      res.once('close', () => noteReference(req.headers, 'abc123def456'));
      res.end();
    };
    await (await fetch(`${base}/api/orders`)).text();
    await until(() => requestLines().length === 1, 2000);
    expect(requestLines()[0]).toEqual(
      expect.objectContaining({ level: 'error', status: 500, reference: 'abc123def456' }),
    );
  });

  it('counts a request that got no answer as 499, and says it was aborted', async () => {
    answer = (_req, res) => res.destroy();
    await expect(fetch(`${base}/slow`)).rejects.toThrow();
    await until(() => requestLines().length === 1, 2000);
    expect(requestLines()[0]).toEqual(expect.objectContaining({ status: NO_ANSWER, aborted: true }));
  });

  it('looks a label set up through prom-client once, then adds to what it made', async () => {
    const observe = jest.spyOn(duration, 'observe');
    for (let i = 0; i < 3; i += 1) await (await fetch(`${base}/robots.txt`)).text();
    await until(async () => (await counted()).some((series) => series.count === 3), 2000);
    expect(observe).toHaveBeenCalledTimes(1);
  });

  it('counts each method apart, on one route with one status', async () => {
    answer = (req, res) => {
      matched(req, '/orders');
      res.end();
    };
    await (await fetch(`${base}/orders`)).text();
    await (await fetch(`${base}/orders`, { method: 'POST', body: 'x' })).text();
    await (await fetch(`${base}/orders`, { method: 'POST', body: 'y' })).text();
    expect(await counted()).toEqual([
      expect.objectContaining({ http_request_method: 'GET', http_route: '/orders', count: 1 }),
      expect.objectContaining({ http_request_method: 'POST', http_route: '/orders', count: 2 }),
    ]);
  });

  it('takes the route a stage gave it over anything Next left', async () => {
    answer = (_req, res) => {
      observer.answeredAs(res, '(refused)');
      res.statusCode = 400;
      res.end();
    };
    await (await fetch(`${base}/whatever`)).text();
    expect(await counted()).toEqual([expect.objectContaining({ http_route: '(refused)', count: 1 })]);
  });

  it('writes each line of answers that close in one turn, a line that cannot be made losing no other', async () => {
    // Answers closing together, as a burst of keep-alive answers do in one turn of the event loop.
    const made = ['/first', '/second', '/third'].map((url) => {
      const req = Object.assign(new EventEmitter(), { url, method: 'GET', headers: {} });
      const res = Object.assign(new EventEmitter(), {
        req,
        headersSent: true,
        statusCode: 404,
        writableFinished: true,
      });
      return { req, res };
    });
    for (const { req, res } of made) observer.requestStarted(req as never, res as never);
    const microtasks = jest.spyOn(globalThis, 'queueMicrotask');
    // The second's headers cannot be read when its line is made (after its turn's 'close' listeners).
    const second = made[1] as (typeof made)[number];
    for (const { res } of made) res.emit('close');
    // (A second 'close', should anything emit one, counts nothing.)
    (made[0] as (typeof made)[number]).res.emit('close');
    Object.defineProperty(second.req, 'headers', {
      get: () => {
        throw new Error('gone');
      },
    });
    expect(requestLines()).toEqual([]);
    // One microtask for the turn's lines, not one each.
    expect(microtasks).toHaveBeenCalledTimes(1);
    await Promise.resolve();
    expect(requestLines().map((line) => line.path)).toEqual(['/first', '/third']);
    expect(await counted()).toEqual([
      expect.objectContaining({ http_response_status_code: '404', count: 3 }),
    ]);
  });

  it('writes no line below LOG_LEVEL, and still times the request', async () => {
    setLogLevel('warn');
    await (await fetch(`${base}/robots.txt`)).text();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(requestLines()).toEqual([]);
    expect(await counted()).toEqual([expect.objectContaining({ http_route: '/robots.txt', count: 1 })]);
  });
});

describe('the logged path', () => {
  it('is cut between parameters, never inside one, and scrubbed', () => {
    const params = Array.from({ length: 4000 }, (_, i) => `p${i}=${i}`);
    params.splice(3, 0, 'token=s3cr3t-value');
    const logged = loggedPath(`/search?${params.join('&')}&password=after-the-cut`);
    expect(logged.length).toBeLessThanOrEqual(MAX_LOGGED_PATH + 2);
    expect(logged).toMatch(/^\/search\?p0=0&p1=1&p2=2&token=\[Filtered\]&p3=3&.*&p\d+=\d+&…$/);
    expect(logged).not.toContain('s3cr3t');
    expect(logged).not.toContain('after-the-cut');
  });

  it('leaves out a parameter too long to keep whole', () => {
    expect(loggedPath(`/a?jwt=${'x'.repeat(MAX_LOGGED_PATH)}`)).toBe('/a?…');
  });

  it('is scrubbed the same when it comes from what was kept of an earlier request', () => {
    const kept = new Map<string, string>();
    const url = '/reset?token=s3cr3t-value';
    expect(loggedPath(url, kept)).toBe('/reset?token=[Filtered]');
    expect(kept.get(url)).toBe('/reset?token=[Filtered]');
    expect(loggedPath(url, kept)).toBe('/reset?token=[Filtered]');
  });

  it('keeps at most a bounded number of paths, whatever a stranger sends', () => {
    const kept = new Map<string, string>();
    for (let i = 0; i < 2000; i += 1) loggedPath(`/random-${i}`, kept);
    expect(kept.size).toBeLessThanOrEqual(512);
    loggedPath(`/${'a'.repeat(MAX_LOGGED_PATH + 1)}`, kept);
    expect([...kept.keys()].every((key) => key.length <= MAX_LOGGED_PATH)).toBe(true);
  });
});

describe('cutUrl at its edges', () => {
  const MAX = MAX_LOGGED_PATH;
  /** A path of `count` segments of 9 characters each ("/aaaaaaaa"). */
  const segments = (count: number) => '/aaaaaaaa'.repeat(count);

  it(`leaves a URL of ${MAX} characters whole`, () => {
    // docs/operations.md's 2,048 characters, written out.
    expect(MAX).toBe(2048);
    const url = `/a?q=${'x'.repeat(MAX - 5)}`;
    expect(url).toHaveLength(MAX);
    expect(cutUrl(url)).toBe(url);
  });

  it(`leaves a path with no query of ${MAX} characters whole, and cuts one a character longer`, () => {
    const path = `${segments(227)}/${'b'.repeat(MAX - 227 * 9 - 1)}`;
    expect(path).toHaveLength(MAX);
    expect(cutUrl(path)).toBe(path);
    expect(cutUrl(`${path}c`)).toBe(`${segments(227)}/…`);
    expect(cutUrl('/a')).toBe('/a');
  });

  it('cuts a long path with no query between segments, keeping a segment that ends at the limit', () => {
    // 227 segments end at 2,043; one more (2,052) is over.
    const path = segments(230);
    expect(cutUrl(path)).toBe(`${segments(227)}/…`);
    // A path whose segments end exactly at the limit keeps the last one.
    const exact = `${segments(227)}/${'b'.repeat(MAX - 227 * 9 - 1)}`;
    expect(cutUrl(`${exact}/more`)).toBe(`${exact}/…`);
  });

  it('cuts a long query between parameters, in what the path leaves of the limit', () => {
    const path = `/p${'x'.repeat(98)}`;
    // 1,947 characters left after the path and '?': 177 parameters of 10 take 1,946 with the '&'
    // between them; one more would take 1,957.
    const params = Array.from({ length: 300 }, (_, i) => `k=${String(i).padStart(8, '0')}`);
    const cut = cutUrl(`${path}?${params.join('&')}`);
    expect(cut).toBe(`${path}?${params.slice(0, 177).join('&')}&…`);
    expect(cut.length).toBeLessThanOrEqual(MAX + 2);
  });

  it('keeps a whole query that fits after a path just under the limit', () => {
    const path = `/${'p'.repeat(MAX - 10)}`;
    expect(cutUrl(`${path}?a=1&b=22`)).toBe(`${path}?a=1&b=22`);
    expect(cutUrl(`${path}?a=1&b=222`)).toBe(`${path}?a=1&…`);
  });

  it('keeps no query after a path at the limit', () => {
    const path = `/${'p'.repeat(MAX - 1)}`;
    expect(cutUrl(`${path}?a=1`)).toBe(`${path}?…`);
  });
});

describe('what is kept of scrubbed paths', () => {
  it('starts again once 512 are kept, and keeps a path of the largest logged length', () => {
    const kept = new Map<string, string>();
    for (let i = 0; i < 512; i += 1) loggedPath(`/random-${i}`, kept);
    expect(kept.size).toBe(512);
    loggedPath('/one-more', kept);
    expect([...kept.keys()]).toEqual(['/one-more']);
    const longest = `/${'a'.repeat(MAX_LOGGED_PATH - 1)}`;
    loggedPath(longest, kept);
    expect(kept.has(longest)).toBe(true);
  });
});

describe('the time a request took', () => {
  it('is measured from its start to its close: seconds in the histogram, ms to a tenth in the log', async () => {
    const clock = jest.spyOn(performance, 'now');
    clock.mockReturnValue(10_000);
    answer = (_req, res) => {
      clock.mockReturnValue(10_234.56);
      res.end('ok');
    };
    await (await fetch(`${base}/robots.txt?v=2`)).text();
    await until(() => requestLines().length === 1, 2000);
    clock.mockRestore();
    const [line] = requestLines();
    expect(line).toMatchObject({ durationMs: 234.6, route: '/robots.txt', path: '/robots.txt?v=2' });
    const sum = (await duration.get()).values.find((value) => value.metricName?.endsWith('_sum'));
    expect(sum?.value).toBeCloseTo(0.23456, 6);
  });
});
