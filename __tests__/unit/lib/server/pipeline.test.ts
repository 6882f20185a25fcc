// The server's stages in order, on a real loopback server with a stand-in for Next: which stage
// answers what, and that every answer passes the stages before it.
import { serviceWorkerStage } from '@lib/service-worker/serve';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { installServerReporter, serverReporterSlot } from '@lib/reporting/server-hook';
import type { Tunnel } from '@lib/reporting/tunnel';
import { Histogram, Registry } from 'prom-client';
import { createRequestObserver } from '@lib/server/observe-requests';
import { notFoundStage } from '@lib/server/not-found';
import { createPipeline, type NextStage, type Pipeline } from '@lib/server/pipeline';
import { sendRaw } from '../../../support/raw-http';
import { PIPELINE_SETTINGS } from '../../../support/pipeline-settings';
import { until } from '../../../support/until';

const NEXT_META = Symbol.for('NextInternalRequestMeta');

let pipeline: Pipeline;
let port: number;
let nextSaw: string[];
let nextFails: unknown;
let tunnelSaw: string[];
let stderr: jest.SpyInstance;
/** Responses to /hold, left open until the test ends them. */
let held: ServerResponse[];
let duration: Histogram<'http_request_method' | 'http_route' | 'http_response_status_code'>;

const fakeNext: NextStage = {
  handle: (req: IncomingMessage, res: ServerResponse) => {
    if (nextFails) return Promise.reject(nextFails);
    nextSaw.push(req.url ?? '');
    if (req.url === '/products/7') {
      // As Next does for a page that fails: its match, then the error page's, then a 500.
      const meta = (req as unknown as Record<symbol, Record<string, unknown>>)[NEXT_META] ?? {};
      meta.match = { definition: { page: '/products/[id]' } };
      meta.match = { definition: { page: '/_error' } };
      (req as unknown as Record<symbol, unknown>)[NEXT_META] = meta;
      res.statusCode = 500;
    }
    if (req.url === '/hold') {
      held.push(res);
      return Promise.resolve();
    }
    res.end('from next');
    return Promise.resolve();
  },
  renderError: (_req, res, path) => {
    res.end(`screen for ${path}`);
    return Promise.resolve();
  },
};

const fakeTunnel = {
  path: '/t3st',
  matches: (url: string | undefined) => url === '/t3st',
  handle: (req: IncomingMessage, res: ServerResponse) => {
    tunnelSaw.push(req.url ?? '');
    res.end('from the tunnel');
    return Promise.resolve();
  },
  bufferedBytes: () => 0,
  close: () => {},
} satisfies Tunnel;

beforeEach(async () => {
  nextSaw = [];
  tunnelSaw = [];
  nextFails = undefined;
  held = [];
  stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  duration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'test',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    registers: [new Registry()],
  });
  pipeline = createPipeline({
    settings: PIPELINE_SETTINGS,
    dev: false,
    next: fakeNext,
    tunnel: fakeTunnel,
    observer: createRequestObserver({
      duration: () => duration,
      publicFiles: new Set(),
      quietRoutes: new Set(),
    }),
    notFound: notFoundStage({
      documents: new Map([['en', Buffer.from('Page not found')]]),
      isUnknown: (path) => path === '/api/nope',
      compress: false,
    }),
    reportingFile: (path) =>
      path === '/_next/static/chunks/reporting-old.js' ? '/_next/static/chunks/reporting-new.js' : null,
    serviceWorker: serviceWorkerStage(
      new Map([['en', Buffer.from('self.addEventListener("fetch", () => {});')]]),
    ),
    // A stand-in for a stopping peer's reports (lib/reporting/queue/hand-off.ts): its own path only.
    reportsHandOff: (_req, res, path) => {
      if (path !== '/_next/app-shell/reports') return false;
      res.writeHead(200, { 'Content-Length': '5' }).end('taken');
      return true;
    },
  });
  await new Promise<void>((resolve) => pipeline.server.listen(0, '127.0.0.1', resolve));
  port = (pipeline.server.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const res of held) res.end();
  pipeline.server.closeAllConnections();
  await new Promise((resolve) => pipeline.server.close(resolve));
  serverReporterSlot.clear();
  jest.restoreAllMocks();
});

const get = (target: string, headers = 'Host: x\r\n') =>
  sendRaw(port, `GET ${target} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`);

const loggedEvents = () =>
  stderr.mock.calls
    .map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
    .filter((line) => line.event !== 'http.request');

const requestLines = () =>
  stderr.mock.calls
    .map(([line]) => JSON.parse(String(line)) as Record<string, unknown>)
    .filter((line) => line.event === 'http.request');

/** The routes requests were timed under, with their status. */
async function timedRoutes() {
  return (await duration.get()).values
    .filter((value) => value.metricName?.endsWith('_count'))
    .map((value) => `${value.labels.http_route} ${value.labels.http_response_status_code}`)
    .sort();
}

describe('the server pipeline', () => {
  it('hands an ordinary request to Next, with the security headers set before it', async () => {
    const answer = await get('/orders?id=3');
    expect(answer.body).toBe('from next');
    expect(nextSaw).toEqual(['/orders?id=3']);
    expect(answer.headers['x-content-type-options']).toEqual(['nosniff']);
  });

  it('answers a request without Host before Next, with the security headers', async () => {
    const answer = await get('/orders', '');
    expect(answer.status).toBe(400);
    expect(answer.headers['x-content-type-options']).toEqual(['nosniff']);
    expect(nextSaw).toEqual([]);
  });

  it('turns an absolute-form target into a path before anything after it reads the URL', async () => {
    await get('http://x/orders');
    expect(nextSaw).toEqual(['/orders']);
  });

  it('gives Next the whole query of a probe path where Next answers the probe (no stage of its own)', async () => {
    await get('/api/health/live?a=1&b=2');
    expect(nextSaw).toEqual(['/api/health/live?a=1&b=2']);
  });

  it('refuses a query of too many parameters: a screen for pages, problem details under /api', async () => {
    const many = Array.from({ length: 300 }, (_, i) => `p${i}=1`).join('&');
    const page = await get(`/search?${many}`);
    expect(page.status).toBe(414);
    expect(page.body).toBe('screen for /search');
    const api = await get(`/api/orders?${many}`);
    expect(api.status).toBe(414);
    expect(api.headers['content-type']).toEqual(['application/problem+json']);
    expect(nextSaw).toEqual([]);
  });

  it('sends the tunnel path to the tunnel, not to Next', async () => {
    const answer = await get('/t3st');
    expect(answer.body).toBe('from the tunnel');
    expect(tunnelSaw).toEqual(['/t3st']);
    expect(nextSaw).toEqual([]);
  });

  it('reports a failure of Next itself, answers 500, and logs the reference with the error', async () => {
    const reporter = jest.fn(() => 'ref-1234');
    installServerReporter(reporter);
    nextFails = new TypeError('handler broke');
    const answer = await get('/orders');
    expect(answer.status).toBe(500);
    expect(reporter).toHaveBeenCalledWith(
      nextFails,
      expect.objectContaining({ status: 500, mechanism: 'request_handler', path: '/orders' }),
    );
    const line = loggedEvents().find((entry) => entry.event === 'server.request_failed');
    expect(line).toEqual(
      expect.objectContaining({
        reference: 'ref-1234',
        error: expect.objectContaining({
          type: 'TypeError',
          message: 'handler broke',
          stack: expect.stringContaining('handler broke'),
        }),
      }),
    );
    // And the request's own line names it, so that a visitor's reference finds the request.
    await until(() => requestLines().length === 1);
    expect(requestLines()).toEqual([expect.objectContaining({ status: 500, reference: 'ref-1234' })]);
  });

  it('marks every answer as the app’s own, whoever writes it, so the service worker can tell it from a balancer’s', async () => {
    const answers = [
      await get('/orders'),
      await get('/orders', ''),
      await get('/t3st'),
      await get('/api/nope'),
    ];
    nextFails = new TypeError('handler broke');
    answers.push(await get('/orders'));
    expect(answers.map((answer) => answer.status)).toEqual([200, 400, 200, 404, 500]);
    for (const answer of answers) expect(answer.headers['x-app-shell-answer']).toEqual(['1']);
  });

  it('marks the answers to HEAD too, which is how a screen asks whether the app is back', async () => {
    // lib/service-worker/come-back.ts asks with HEAD and reloads on the mark (docs/unavailable-screens.md).
    const head = (target: string) =>
      sendRaw(port, `HEAD ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    const answers = [await head('/orders'), await head('/api/nope'), await head('/t3st')];
    nextFails = new TypeError('handler broke');
    answers.push(await head('/orders'));
    expect(answers.map((answer) => [answer.status, answer.body])).toEqual([
      [200, ''],
      [404, ''],
      [200, ''],
      [500, ''],
    ]);
    for (const answer of answers) expect(answer.headers['x-app-shell-answer']).toEqual(['1']);
  });

  it('gives a stopping peer’s reports to the hand-off, before Next, timed as the shell’s', async () => {
    const handed = await get('/_next/app-shell/reports?x=1');
    expect([handed.status, handed.body]).toEqual([200, 'taken']);
    expect(nextSaw).toEqual([]);
    await get('/_next/app-shell/other');
    expect(nextSaw).toEqual(['/_next/app-shell/other']);
    for (let waited = 0; (await timedRoutes()).length < 1 && waited < 2000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await timedRoutes()).toContain('(shell) 200');
  });

  it('answers the service worker’s script and beacons before Next, timed as the shell’s and as beacons', async () => {
    const script = await get('/_next/app-shell/worker.js');
    expect(script.body).toBe('self.addEventListener("fetch", () => {});');
    expect(script.headers['cache-control']).toEqual(['no-cache']);
    const beacon = await sendRaw(
      port,
      'POST /_next/app-shell/screen-seen/offline HTTP/1.1\r\nHost: x\r\nSec-Fetch-Site: same-origin\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
    );
    expect(beacon.status).toBe(204);
    expect(nextSaw).toEqual([]);
    for (let waited = 0; (await timedRoutes()).length < 2 && waited < 2000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await timedRoutes()).toEqual(['(beacon) 204', '(shell) 200']);
  });

  it('counts every request in flight, including those a guard answers, and asks for close while draining', async () => {
    const before = pipeline.requests.inFlight();
    pipeline.requests.startDraining();
    const answer = await sendRaw(port, 'GET /orders HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(answer.headers.connection).toEqual(['close']);
    const refused = await get('/orders', '');
    expect(refused.headers.connection).toEqual(['close']);
    expect(pipeline.requests.inFlight()).toBe(before);
  });

  it('times every request, under the route of the stage that answered it', async () => {
    await get('/t3st');
    await get('/orders', '');
    await get('/api/nope');
    await get(`/search?${'a=1&'.repeat(2000)}`);
    // Timed as each response closes, a moment after its answer arrived (bounded: 2 s at most).
    for (let waited = 0; (await timedRoutes()).length < 4 && waited < 2000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await timedRoutes()).toEqual(['(refused) 400', '(refused) 414', '/404 404', '/t3st 200']);
  });

  it('times and logs a page Next answered with its error page under the page’s route', async () => {
    await get('/products/7');
    await until(() => requestLines().length === 1);
    expect(await timedRoutes()).toEqual(['/products/[id] 500']);
    expect(requestLines()).toEqual([expect.objectContaining({ route: '/products/[id]', status: 500 })]);
  });

  it('sends a request for another build’s reporting file to this build’s, uncached, before Next', async () => {
    const answer = await get('/_next/static/chunks/reporting-old.js?v=1');
    expect(answer.status).toBe(307);
    expect(answer.headers.location).toEqual(['/_next/static/chunks/reporting-new.js']);
    expect(answer.headers['cache-control']).toEqual(['no-store']);
    expect(answer.headers['x-content-type-options']).toEqual(['nosniff']);
    expect(nextSaw).toEqual([]);
    await get('/_next/static/chunks/reporting-new.js');
    expect(nextSaw).toEqual(['/_next/static/chunks/reporting-new.js']);
  });

  it('refuses protocol upgrades in production and CONNECT always', async () => {
    const upgrade = await sendRaw(
      port,
      'GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    expect(upgrade.status).toBe(400);
    const tunnel = await sendRaw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(tunnel.status).toBe(405);
    expect(nextSaw).toEqual([]);
  });

  it('marks a connection busy while its request is in flight, and idle once answered', async () => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => {});
    try {
      socket.write('GET /hold HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(() => held.length === 1, 2000);
      expect([pipeline.connections.open(), pipeline.connections.idle()]).toEqual([1, 0]);
      held[0]!.end('done');
      await until(() => pipeline.connections.idle() === 1, 2000);
    } finally {
      socket.destroy();
    }
  });
});

describe("the product's headers() in the pipeline", () => {
  let withRules: Pipeline;
  let rulesPort: number;

  beforeEach(async () => {
    withRules = createPipeline({
      settings: PIPELINE_SETTINGS,
      dev: false,
      next: {
        ...fakeNext,
        handle: (req, res) => {
          if (req.url === '/decided-missing') {
            // As Next's router marks a 404 it decides (lib/server/restyle-not-found.ts).
            (req as unknown as Record<symbol, unknown>)[NEXT_META] = { invokePath: '/404' };
            res.statusCode = 404;
          }
          res.end('from next');
          return Promise.resolve();
        },
      },
      tunnel: fakeTunnel,
      observer: createRequestObserver({
        duration: () => null,
        publicFiles: new Set(),
        quietRoutes: new Set(),
      }),
      notFound: notFoundStage({
        documents: new Map([['en', Buffer.from('Page not found')]]),
        isUnknown: (path) => path === '/api/nope',
        compress: false,
      }),
      productHeaders: () => ({ 'x-product-team': 'storefront', 'X-Frame-Options': 'SAMEORIGIN' }),
    });
    await new Promise<void>((resolve) => withRules.server.listen(0, '127.0.0.1', resolve));
    rulesPort = (withRules.server.address() as AddressInfo).port;
  });

  afterEach(async () => {
    withRules.server.closeAllConnections();
    await new Promise((resolve) => withRules.server.close(resolve));
  });

  const ask = (target: string) =>
    sendRaw(rulesPort, `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);

  it.each([
    ['the tunnel', '/t3st'],
    ['a path surely unknown', '/api/nope'],
    ['a 404 Next decided, in the shell’s words', '/decided-missing'],
    ['the 414', `/?${Array.from({ length: 1001 }, (_, at) => `p${at}=1`).join('&')}`],
  ])('sets them on %s, over the shell’s default of the same name', async (_what, target) => {
    const { headers } = await ask(target);
    expect(headers['x-product-team']).toEqual(['storefront']);
    expect(headers['x-frame-options']).toEqual(['SAMEORIGIN']);
  });

  it('leaves them to Next where Next answers (it sets them itself)', async () => {
    const { body, headers } = await ask('/about');
    expect(body).toBe('from next');
    expect(headers['x-product-team']).toBeUndefined();
    expect(headers['x-frame-options']).toEqual(['DENY']);
  });

  it("names the tunnel in a page's policy, when there is one", async () => {
    const { headers } = await ask('/about');
    expect(String(headers['content-security-policy'])).toMatch(/; report-uri \/t3st; report-to csp$/);
    expect(headers['reporting-endpoints']).toEqual(['csp="/t3st"']);
  });
});

describe('the pipeline under `npm run dev`', () => {
  it('gives each page answer a script nonce in its policy, and hands Next the same policy', async () => {
    /** The policy each request carried when it reached Next. */
    const policiesSeen: (string | undefined)[] = [];
    const dev = createPipeline({
      settings: PIPELINE_SETTINGS,
      dev: true,
      next: {
        ...fakeNext,
        handle: (req, res) => {
          policiesSeen.push(req.headers['content-security-policy'] as string | undefined);
          res.end('from next');
          return Promise.resolve();
        },
      },
      tunnel: fakeTunnel,
      observer: createRequestObserver({
        duration: () => null,
        publicFiles: new Set(),
        quietRoutes: new Set(),
      }),
    });
    await new Promise<void>((resolve) => dev.server.listen(0, '127.0.0.1', resolve));
    const devPort = (dev.server.address() as AddressInfo).port;
    try {
      const page = await sendRaw(devPort, 'GET /orders HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      const policy = page.headers['content-security-policy']?.[0];
      expect(policy).toMatch(/script-src 'self' 'unsafe-eval' 'nonce-[A-Za-z0-9+/]{22}=='/);
      // The rest of the policy as the pipeline chose it: its reports still go to the tunnel.
      expect(policy).toMatch(/; report-uri \/t3st; report-to csp$/);
      expect(policiesSeen).toEqual([policy]);
    } finally {
      dev.server.closeAllConnections();
      await new Promise((resolve) => dev.server.close(resolve));
    }
  });

  it('gives none in production', async () => {
    const page = await get('/orders');
    expect(page.headers['content-security-policy']?.[0]).not.toContain('nonce');
  });
});
