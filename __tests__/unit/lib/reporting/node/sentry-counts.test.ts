// What the server's Sentry sender counts (app_error_reports_total): sent when the ingest took a
// report, dropped by the ingest's answer or by the SDK's own reason.
import { recorderWith } from '../../../../support/recorder';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { recorderSlot } from '@lib/metrics/record';
import { startInactiveSpan, startNewTrace } from '@sentry/core';
import { createSentrySender, type SentrySender } from '@lib/reporting/node/sentry-client';
import { until } from '../../../../support/until';

let ingest: Server;
let answers: number[];
let send: SentrySender;
let counted: string[];

beforeAll(async () => {
  resetLifecycle();
  ingest = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const status = answers.shift() ?? 200;
      res.writeHead(status, status === 429 ? { 'retry-after': '60' } : {}).end('{}');
    });
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  counted = [];
  recorderSlot.write(recorderWith({ report: (outcome, reason) => counted.push(`${outcome} ${reason}`) }));
  send = createSentrySender({
    dsn: `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`,
    release: 'r1',
    environment: 'test',
    tracesSampleRate: 1,
  });
});

afterAll(async () => {
  await lifecycleState().beforeExit.get('error-reports')!();
  recorderSlot.clear();
  ingest.closeAllConnections();
  ingest.close();
});

const context = { route: '/orders/[id]', method: 'GET', status: 500 };
const id = (n: number) => String(n).repeat(32).slice(0, 32);

describe('the counts of server reports', () => {
  it('counts a report the ingest took as sent, one it refused by its status, and one the SDK held back by its reason', async () => {
    answers = [200, 429];
    send(new Error('first'), id(1), context, undefined);
    await until(() => counted.length === 1);
    send(new Error('second'), id(2), context, undefined);
    await until(() => counted.length === 2);
    // Rate limited now: the SDK drops the third without sending it.
    send(new Error('third'), id(3), context, undefined);
    await until(() => counted.length === 3);
    expect(counted).toEqual(['sent ', 'dropped ingest_429', 'dropped ratelimit_backoff']);
  });

  it('counts no transaction, sent or dropped: it is no error report', async () => {
    answers = [];
    counted.length = 0;
    // Still rate limited from the test above: the transaction is dropped by the SDK.
    startNewTrace(() => startInactiveSpan({ name: 'GET /orders/[id]', forceTransaction: true })).end();
    send(new Error('fourth'), id(4), context, undefined);
    await until(() => counted.length >= 1);
    await lifecycleState().beforeExit.get('error-reports')!();
    expect(counted).toEqual(['dropped ratelimit_backoff']);
  });
});
