// What the server's Sentry sender counts for each kind of envelope and answer: transactions apart
// from error reports (app_transactions_total), an envelope the report queue holds as queued, and
// the tags every server report carries.
import { recorderWith } from '../../../../support/recorder';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startInactiveSpan, startNewTrace } from '@sentry/core';
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { recorderSlot } from '@lib/metrics/record';
import { createSentrySender, type SentrySender } from '@lib/reporting/node/sentry-client';
import { createReportQueue, type ReportQueue, reportQueueSlot } from '@lib/reporting/queue/queue';
import { memoryStore } from '@lib/reporting/queue/store';
import { until } from '../../../../support/until';

let ingest: Server;
let answers: number[];
let bodies: string[];
let send: SentrySender;
let counted: string[];

beforeAll(async () => {
  resetLifecycle();
  ingest = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(answers.shift() ?? 200).end('{}');
    });
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  recorderSlot.write(
    recorderWith({
      report: (outcome, reason) => counted.push(`report ${outcome} ${reason}`),
      transaction: (outcome, reason) => counted.push(`transaction ${outcome} ${reason}`),
    }),
  );
  send = createSentrySender({
    dsn: `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`,
    release: 'r1',
    environment: 'test',
    tracesSampleRate: 1,
  });
});

beforeEach(() => {
  answers = [];
  bodies = [];
  counted = [];
});

afterAll(async () => {
  await lifecycleState().beforeExit.get('error-reports')!();
  recorderSlot.clear();
  ingest.closeAllConnections();
  ingest.close();
});

const context = { route: '/orders/[id]', method: 'GET', status: 500 };
const id = (n: number) => String(n).repeat(32).slice(0, 32);
const transaction = () =>
  startNewTrace(() => startInactiveSpan({ name: 'GET /orders/[id]', forceTransaction: true })).end();

describe('the counts of server envelopes', () => {
  it('counts a transaction the ingest took as a transaction sent with its status class', async () => {
    transaction();
    await until(() => counted.length === 1);
    expect(counted).toEqual(['transaction sent 2xx']);
  });

  it('counts a report the ingest answered 300 as dropped, not sent', async () => {
    answers = [300];
    send(new Error('redirected'), id(5), context, undefined);
    await until(() => counted.length === 1);
    expect(counted).toEqual(['report dropped ingest_3xx']);
  });

  it('counts what waits in the report queue as queued, report and transaction alike', async () => {
    let queue: ReportQueue | undefined;
    try {
      queue = createReportQueue({
        store: memoryStore(),
        send: () => Promise.resolve({ status: 500, rateLimits: null, retryAfter: null, body: '' }),
        limits: { minBackoffMs: 60_000 },
      });
      reportQueueSlot.write(queue);
      send(new Error('waits'), id(6), context, undefined);
      await until(() => counted.length === 1);
      transaction();
      await until(() => counted.length === 2);
      expect(counted).toEqual(['report queued ', 'transaction queued ']);
    } finally {
      queue?.stop();
      reportQueueSlot.clear();
    }
  });
});

describe('the tags of a server report', () => {
  it('name Next’s request-error hook as the mechanism when the caller names none', async () => {
    send(new Error('tagged'), id(7), context, '/orders/7');
    await until(() => bodies.length === 1);
    expect(bodies[0]).toContain('"mechanism":"onRequestError"');
    expect(bodies[0]).toContain('"url":"/orders/7"');
  });
});
