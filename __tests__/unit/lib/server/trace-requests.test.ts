// Server transactions on a real server and the server's own Sentry client: what reaches an ingest,
// what the document is handed, and what is never traced.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Event, parseEnvelope } from '@sentry/core';
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { createSentrySender } from '@lib/reporting/node/sentry-client';
import { type TraceMeta, traceMetaOf } from '@lib/reporting/trace-meta';
import { recorderSlot } from '@lib/metrics/record';
import { createRequestTracer } from '@lib/server/trace-requests';
import { recorderWith } from '../../../support/recorder';

let ingest: Server;
let app: Server;
let received: string[];
/** What each request's handler found on its request, by path. */
let handed: Map<string, TraceMeta | null>;

const tracer = createRequestTracer({
  publicFiles: new Set(['/robots.txt']),
  untraced: new Set(['/api/health/live']),
  sampleRate: 1,
});

beforeAll(async () => {
  resetLifecycle();
  ingest = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  createSentrySender({
    dsn: `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`,
    release: 'r1',
    environment: 'test',
    tracesSampleRate: 1,
  });
  // Stands in for the pipeline and Next: traces, then answers as Next would have routed it.
  app = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    tracer(req, res, pathname);
    handed.set(pathname, traceMetaOf(req));
    if (pathname.startsWith('/orders/'))
      (req as IncomingMessage & Record<symbol, unknown>)[Symbol.for('NextInternalRequestMeta')] = {
        match: { definition: { page: '/orders/[id]' } },
      };
    res.statusCode = pathname.endsWith('/fails') ? 500 : 200;
    res.end('ok');
  });
  app.listen(0, '127.0.0.1');
  await once(app, 'listening');
});

beforeEach(() => {
  received = [];
  handed = new Map();
});

afterAll(async () => {
  await lifecycleState().beforeExit.get('error-reports')!();
  ingest.closeAllConnections();
  ingest.close();
  app.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`http://127.0.0.1:${(app.address() as AddressInfo).port}${path}`, { headers }).then((r) => r.text());

async function transactions(): Promise<Event[]> {
  await lifecycleState().beforeExit.get('error-reports')!();
  return received.flatMap((raw) =>
    parseEnvelope(raw)[1]
      .filter(([header]) => header.type === 'transaction')
      .map(([, payload]) => payload as Event),
  );
}

const TRACE_ID = 'a'.repeat(32);
const SPAN_ID = 'b'.repeat(16);

describe('a traced request', () => {
  it('is one http.server transaction named by its route, whose trace the document is handed', async () => {
    await get('/orders/42?token=s3cr3t');
    const [transaction, ...more] = await transactions();
    expect(more).toEqual([]);
    expect(transaction).toMatchObject({
      type: 'transaction',
      transaction: 'GET /orders/[id]',
      transaction_info: { source: 'route' },
      contexts: { trace: { op: 'http.server', status: 'ok' } },
    });
    const meta = handed.get('/orders/42')!;
    const { trace_id: traceId, span_id: spanId } = transaction!.contexts!.trace!;
    expect(meta.sentryTrace).toBe(`${traceId}-${spanId}-1`);
    expect(meta.baggage).toContain(`sentry-trace_id=${traceId}`);
    expect(meta.baggage).toContain('sentry-sampled=true');
    // Neither the concrete path nor its query reaches the ingest or the document.
    expect(JSON.stringify(transaction)).not.toMatch(/orders\/42|s3cr3t/);
    expect(meta.baggage).not.toMatch(/orders|s3cr3t/);
  });

  it('says it was made by the shell, for which method', async () => {
    await get('/orders/43');
    const [transaction] = await transactions();
    expect(transaction!.contexts!.trace).toMatchObject({
      origin: 'auto.http.app_shell',
      data: expect.objectContaining({ 'http.request.method': 'GET' }),
    });
  });

  it('spends none of the budget on a trace that is not sampled', async () => {
    const counted: string[] = [];
    recorderSlot.write(recorderWith({ inheritedSampled: (outcome) => counted.push(outcome) }));
    try {
      await get('/orders/9', { 'sentry-trace': `${TRACE_ID}-${SPAN_ID}-0` });
      await get('/orders/10', { 'sentry-trace': `${TRACE_ID}-${SPAN_ID}-1` });
      expect(counted).toEqual(['honoured']);
      expect(await transactions()).toHaveLength(1);
    } finally {
      recorderSlot.clear();
    }
  });

  it('is answered status by status', async () => {
    await get('/orders/fails');
    const [transaction] = await transactions();
    expect(transaction!.contexts!.trace!.status).toBe('internal_error');
    expect(transaction!.contexts!.trace!.data!['http.response.status_code']).toBe(500);
  });

  it('gets a trace of its own, never one another request started', async () => {
    await Promise.all([get('/orders/1'), get('/orders/2')]);
    const ids = (await transactions()).map((t) => t.contexts!.trace!.trace_id);
    expect(ids).toHaveLength(2);
    expect(new Set(ids).size).toBe(2);
  });

  it('continues the trace it names (a navigation’s data request, a fetch from a sampled page)', async () => {
    await get('/orders/7', {
      'sentry-trace': `${TRACE_ID}-${SPAN_ID}-1`,
      baggage: 'sentry-release=forged,sentry-environment=forged,sentry-user_segment=forged',
    });
    const [transaction] = await transactions();
    expect(transaction!.contexts!.trace).toMatchObject({ trace_id: TRACE_ID, parent_span_id: SPAN_ID });
    // Never a stranger's baggage: not in what is sent, nor in what the document is handed.
    expect(received.join('\n')).not.toContain('forged');
    expect(handed.get('/orders/7')!.baggage).not.toContain('forged');
  });

  it('keeps the decision of the trace it continues: not sampled, nothing sent, and the document told so', async () => {
    await get('/orders/8', { 'sentry-trace': `${TRACE_ID}-${SPAN_ID}-0` });
    expect(await transactions()).toEqual([]);
    expect(handed.get('/orders/8')!.sentryTrace).toMatch(new RegExp(`^${TRACE_ID}-[0-9a-f]{16}-0$`));
  });
});

describe('what is never traced', () => {
  it.each(['/api/health/live', '/robots.txt', '/_next/static/chunks/main.js', '/_next/image'])(
    '%s',
    async (path) => {
      await get(path);
      expect(handed.get(path)).toBeNull();
      expect(await transactions()).toEqual([]);
    },
  );
});
