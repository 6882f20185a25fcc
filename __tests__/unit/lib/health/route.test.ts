import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import type { NextApiRequest, NextApiResponse } from 'next';
import { healthReport, PROBE_PATHS } from '@lib/health/report';
import { healthStage } from '@lib/health/stage';
import { enterPhase, resetLifecycle } from '@lib/lifecycle/state';
import { samplerSlot } from '@lib/health/process-checks';
import overall from '../../../../pages/api/health/index';
import live from '../../../../pages/api/health/live';
import ready from '../../../../pages/api/health/ready';

// The shell's routes, whatever checks a product registers (they would reach real services here).
jest.mock('@lib/health/dependencies', () => ({ dependencyChecks: [] }));

let servers: Server[];
/** Where each answerer listens. */
const bases = new Map<string, string>();
let base: string;

// The three route files, served the way Next routes them: by path, query string aside.
const ROUTES: Record<string, (req: NextApiRequest, res: NextApiResponse) => Promise<void>> = {
  [PROBE_PATHS.overall]: overall,
  [PROBE_PATHS.live]: live,
  [PROBE_PATHS.ready]: ready,
};

/** The same contract from both answerers: Next's route files, and the server's stage before Next. */
const ANSWERERS: Record<string, (req: IncomingMessage, res: ServerResponse) => void> = {
  'the route files (Next, and npm run dev)': (req, res) => {
    const route = ROUTES[(req.url ?? '').split('?')[0]!];
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    void route(req as NextApiRequest, res as unknown as NextApiResponse);
  },
  'the server’s own stage (production)': (() => {
    const stage = healthStage({
      report: healthReport,
      failed: (_req, res) => res.writeHead(500).end(),
    });
    return (req: IncomingMessage, res: ServerResponse) => {
      if (!stage(req, res, (req.url ?? '').split('?')[0]!)) res.writeHead(404).end();
    };
  })(),
};

beforeAll(async () => {
  // A fixed, healthy reading instead of this machine's: a loaded test machine would make the real
  // sampler warn. The sampler's own grading is tested in process-checks.test.ts.
  samplerSlot.write({
    latest: () => ({ eventLoopDelayP99Ms: 2, heapUsedRatio: 0.3, sampledAt: new Date(), sequence: 1 }),
  });
  servers = [];
  for (const [name, answer] of Object.entries(ANSWERERS)) {
    const server = createServer(answer);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    bases.set(name, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
});

afterAll(async () => {
  samplerSlot.clear();
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

beforeEach(() => {
  resetLifecycle();
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => jest.restoreAllMocks());

const PATHS = ['/api/health', '/api/health/live', '/api/health/ready'];

describe.each(Object.keys(ANSWERERS))('health probes, answered by %s', (name) => {
  beforeAll(() => {
    base = bases.get(name)!;
  });

  it.each(PATHS)('%s answers GET with a health+json report, not cached, no cookie', async (path) => {
    enterPhase('ready');
    const res = await fetch(`${base}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/health+json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('set-cookie')).toBeNull();
    const body = await res.json();
    expect(body.status).toBe('pass');
    expect(typeof body.version).toBe('string');
    expect(typeof body.releaseId).toBe('string');
    for (const [key, observations] of Object.entries(body.checks as Record<string, unknown[]>)) {
      expect(key).toMatch(/^[a-z]+:[a-zA-Z]+$/);
      for (const observation of observations) {
        expect(observation).toEqual(
          expect.objectContaining({
            componentType: expect.any(String),
            status: expect.any(String),
            time: expect.any(String),
          }),
        );
      }
    }
  });

  // (Whether bytes follow a HEAD answer can only be seen at the socket: e2e/health.test.ts.)
  it.each(PATHS)('%s answers HEAD with the same status and headers as GET', async (path) => {
    enterPhase('ready');
    const get = await fetch(`${base}${path}`);
    const head = await fetch(`${base}${path}`, { method: 'HEAD' });
    expect(head.status).toBe(get.status);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('cache-control')).toBe(get.headers.get('cache-control'));
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
  });

  it.each(PATHS)('%s answers OPTIONS with 204 and Allow', async (path) => {
    const res = await fetch(`${base}${path}`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow', async (method) => {
    const res = await fetch(`${base}/api/health/ready`, {
      method,
      body: method === 'DELETE' ? undefined : '{}',
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it('ignores query strings, as cache-busting monitors send them', async () => {
    enterPhase('ready');
    const res = await fetch(`${base}/api/health/live?probe=ready&_=123`);
    expect(res.status).toBe(200);
    expect((await res.json()).description).toBe('liveness');
  });

  it('fails readiness and overall with 503 until the server is ready, while liveness passes', async () => {
    expect((await fetch(`${base}/api/health/ready`)).status).toBe(503);
    expect((await fetch(`${base}/api/health`)).status).toBe(503);
    expect((await fetch(`${base}/api/health/live`)).status).toBe(200);
    enterPhase('ready');
    expect((await fetch(`${base}/api/health/ready`)).status).toBe(200);
  });

  it('fails readiness from the moment shutdown starts; liveness stays 200', async () => {
    enterPhase('ready');
    enterPhase('draining');
    const ready = await fetch(`${base}/api/health/ready`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).checks['server:lifecycle'][0]).toEqual(
      expect.objectContaining({ status: 'fail', observedValue: 'draining' }),
    );
    expect((await fetch(`${base}/api/health/live`)).status).toBe(200);
  });

  it('puts no runtime version, host name, path or environment value in a body', async () => {
    enterPhase('ready');
    for (const path of PATHS) {
      const text = await (await fetch(`${base}${path}`)).text();
      expect(text).not.toContain(process.version);
      expect(text).not.toContain(hostname());
      expect(text).not.toContain(process.cwd());
      expect(text).not.toMatch(/next|node|react/i);
    }
  });
});
