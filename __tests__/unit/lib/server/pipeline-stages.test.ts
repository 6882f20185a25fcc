// The pipeline's optional stages, each given alone with a stand-in for Next: the fleet, "Page not
// found", the health probes, the lost-file beacon, and what happens when Next fails after it
// started its answer.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Fleet } from '@lib/fleet/stage';
import { installServerReporter, serverReporterSlot } from '@lib/reporting/server-hook';
import { createRequestObserver } from '@lib/server/observe-requests';
import { healthStage } from '@lib/health/stage';
import { createPipeline, handlerFailed, type PipelineOptions, type Pipeline } from '@lib/server/pipeline';
import { sendRaw } from '../../../support/raw-http';
import { PIPELINE_SETTINGS } from '../../../support/pipeline-settings';

const pipelines: Pipeline[] = [];
let nextSaw: string[];
let stderr: jest.SpyInstance;

beforeEach(() => {
  nextSaw = [];
  stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(async () => {
  for (const pipeline of pipelines.splice(0)) {
    pipeline.server.closeAllConnections();
    if (pipeline.server.listening) await new Promise((resolve) => pipeline.server.close(resolve));
  }
  serverReporterSlot.clear();
  jest.restoreAllMocks();
});

async function start(options: Partial<PipelineOptions> = {}) {
  const pipeline = createPipeline({
    settings: PIPELINE_SETTINGS,
    dev: false,
    next: {
      handle: (req: IncomingMessage, res: ServerResponse) => {
        nextSaw.push(req.url ?? '');
        res.end('from next');
        return Promise.resolve();
      },
      renderError: (_req, res) => {
        res.end('screen');
        return Promise.resolve();
      },
    },
    tunnel: null,
    observer: createRequestObserver({ duration: () => null, publicFiles: new Set(), quietRoutes: new Set() }),
    ...options,
  });
  pipelines.push(pipeline);
  await new Promise<void>((resolve) => pipeline.server.listen(0, '127.0.0.1', resolve));
  const port = (pipeline.server.address() as AddressInfo).port;
  return {
    pipeline,
    port,
    get: (target: string) => sendRaw(port, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
  };
}

const logged = () =>
  stderr.mock.calls.map(([line]) => JSON.parse(String(line)) as { event: string; [key: string]: unknown });

it('hands a request the fleet takes to the fleet, and the rest to Next', async () => {
  const fleet = {
    take: (_req: IncomingMessage, res: ServerResponse, path: string) => {
      if (path !== '/_next/static/chunks/old.js') return false;
      res.end('from a peer');
      return true;
    },
  } as unknown as Fleet;
  const { get } = await start({ fleet });
  expect((await get('/_next/static/chunks/old.js')).body).toBe('from a peer');
  expect((await get('/orders')).body).toBe('from next');
  expect(nextSaw).toEqual(['/orders']);
});

it('hands a path no page answers to "Page not found" when given, before Next', async () => {
  const { get } = await start({
    notFound: {
      answerIfUnknown: (_req, res, path) => {
        if (path !== '/nowhere') return false;
        res.writeHead(404, { 'Content-Length': 14 }).end('not found here');
        return true;
      },
      answer: () => undefined,
    },
  });
  const missing = await get('/nowhere');
  expect([missing.status, missing.body]).toEqual([404, 'not found here']);
  await get('/orders');
  expect(nextSaw).toEqual(['/orders']);
});

it("answers in Next's stead when Next routes a path to its 404 page, under the not-found route", async () => {
  const observe = jest.fn();
  const answered: string[] = [];
  const { get } = await start({
    next: {
      handle: (req: IncomingMessage, res: ServerResponse) => {
        nextSaw.push(req.url ?? '');
        // What Next's router does for a path nothing answers.
        (req as unknown as Record<symbol, object>)[Symbol.for('NextInternalRequestMeta')] = {
          invokePath: '/404',
        };
        res.statusCode = 404;
        res.end('next 404 page');
        return Promise.resolve();
      },
      renderError: () => Promise.resolve(),
    },
    notFound: {
      answerIfUnknown: () => false,
      answer: (_req, res, path) => {
        answered.push(path);
        res.writeHead(404, { 'Content-Length': 4 }).end('ours');
      },
    },
    observer: createRequestObserver({
      duration: () => ({ observe }) as never,
      publicFiles: new Set(),
      quietRoutes: new Set(),
    }),
  });
  const answer = await get('/odd%20path?x=1');
  expect([answer.status, answer.body]).toEqual([404, 'ours']);
  expect([nextSaw, answered]).toEqual([['/odd%20path?x=1'], ['/odd%20path']]);
  await new Promise((resolve) => setImmediate(resolve));
  expect(observe).toHaveBeenCalledWith(expect.objectContaining({ http_route: '/404' }), expect.any(Number));
});

describe('the health probes’ stage', () => {
  const report = (status: 'pass' | 'fail') => () =>
    Promise.resolve({ status, version: '1', releaseId: 'r', description: 'd', checks: {} });

  it('answers a probe before Next, under the probe’s own route, unlogged', async () => {
    const observe = jest.fn();
    const { get } = await start({
      health: healthStage({ report: report('pass'), failed: handlerFailed }),
      observer: createRequestObserver({
        duration: () => ({ observe }) as never,
        publicFiles: new Set(),
        quietRoutes: new Set(['/api/health/live']),
      }),
    });
    const answer = await get('/api/health/live?_=1');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ status: 'pass' });
    expect(answer.headers['content-security-policy']).toEqual(["default-src 'none'; frame-ancestors 'none'"]);
    expect(nextSaw).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect(observe).toHaveBeenCalledWith(
      { http_request_method: 'GET', http_route: '/api/health/live', http_response_status_code: '200' },
      expect.any(Number),
    );
    expect(logged().filter((line) => line.event === 'http.request')).toEqual([]);
    // Another spelling goes on to Next, which answers it as it always has.
    await get('/api/health/live/');
    expect(nextSaw).toEqual(['/api/health/live/']);
  });

  it('answers 500 for a report that threw, reported as the server’s failure', async () => {
    const reporter = jest.fn(() => 'ref-2');
    installServerReporter(reporter);
    const { get } = await start({
      health: healthStage({ report: () => Promise.reject(new Error('check broke')), failed: handlerFailed }),
    });
    expect((await get('/api/health')).status).toBe(500);
    expect(reporter).toHaveBeenCalledWith(
      expect.objectContaining({ message: 'check broke' }),
      expect.objectContaining({ route: '(server)', method: 'GET', status: 500, path: '/api/health' }),
    );
    expect(nextSaw).toEqual([]);
  });
});

it('answers the lost-file beacon itself', async () => {
  const { port } = await start();
  const beacon = await sendRaw(
    port,
    'POST /_next/app-shell/lost-file HTTP/1.1\r\nHost: x\r\nSec-Fetch-Site: same-origin\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
  );
  expect(beacon.status).toBe(204);
  expect(nextSaw).toEqual([]);
});

it('drops the query of a probe it answers, and gives Next the whole query where Next answers it', async () => {
  const report = () =>
    Promise.resolve({ status: 'pass' as const, version: '1', releaseId: 'r', description: 'd', checks: {} });
  const { get } = await start({
    health: healthStage({ report, failed: handlerFailed, servedAt: (path) => `${path}/` }),
  });
  expect((await get(`/api/health/live/?${'a&'.repeat(300)}`)).status).toBe(200);
  await get('/api/health/live?a=1');
  expect(nextSaw).toEqual(['/api/health/live?a=1']);
});

it.each([
  [false, /script-src 'self';/],
  // In development, with a fresh nonce for Next's own inline script (lib/http/development-nonce.ts).
  [true, /script-src 'self' 'unsafe-eval' 'nonce-[A-Za-z0-9+/]+={0,2}';/],
])('sets the security headers of a dev server (%p) on every answer', async (dev, scripts) => {
  const { get } = await start({ dev });
  expect((await get('/orders')).headers['content-security-policy']![0]).toMatch(scripts);
});

it('cuts an answer Next failed after starting it, reported as the server’s route', async () => {
  const reporter = jest.fn(() => 'ref-1');
  installServerReporter(reporter);
  const { port } = await start({
    next: {
      handle: (_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('half of it');
        return Promise.reject(new Error('broke midway'));
      },
      renderError: () => Promise.resolve(),
    },
  });
  const ended = await new Promise<{ complete: boolean; status: number }>((resolve) => {
    http.get({ port, host: '127.0.0.1', path: '/orders', agent: false }, (res) => {
      res.resume();
      res.on('close', () => resolve({ complete: res.complete, status: res.statusCode ?? 0 }));
    });
  });
  expect(ended).toEqual({ complete: false, status: 200 });
  expect(reporter).toHaveBeenCalledWith(
    expect.any(Error),
    expect.objectContaining({ route: '(server)', method: 'GET', status: 500 }),
  );
});

it('logs an error event of a listening server, and not the failure to listen the start says itself', async () => {
  const { pipeline } = await start();
  pipeline.server.emit('error', new Error('after listening'));
  const idle = createPipeline({
    settings: PIPELINE_SETTINGS,
    dev: false,
    next: { handle: () => Promise.resolve(), renderError: () => Promise.resolve() },
    tunnel: null,
    observer: createRequestObserver({ duration: () => null, publicFiles: new Set(), quietRoutes: new Set() }),
  });
  idle.server.emit('error', Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }));
  expect(logged().filter((line) => line.event === 'server.error_event')).toEqual([
    expect.objectContaining({ error: expect.objectContaining({ message: 'after listening' }) }),
  ]);
});
