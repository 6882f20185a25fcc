// The server's Sentry sender with the thread that prepares transactions named (as the compiled
// server names it: lib/server/start.ts), here a stand-in thread (__fixtures__/prepares.cjs): it is
// started with the client's settings, only with tracing on, and what it hands back reaches the
// DSN's ingest, or is counted when the report queue has no room for it.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseEnvelope, startInactiveSpan, startNewTrace } from '@sentry/core';
import { lifecycleState, resetLifecycle } from '../../../../../lib/lifecycle/state';
import { recorderSlot } from '../../../../../lib/metrics/record';
import { createSentrySender } from '../../../../../lib/reporting/node/sentry-client';
import { transactionWorkerSlot } from '../../../../../lib/reporting/node/transaction-thread';
import { reportQueueSlot, type ReportQueue } from '../../../../../lib/reporting/queue/queue';
import { recorderWith } from '../../../../support/recorder';
import { until } from '../../../../support/until';

let ingest: Server;
let received: string[];
let dsn: string;

beforeAll(async () => {
  received = [];
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
  dsn = `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`;
  transactionWorkerSlot.write(path.join(__dirname, '__fixtures__', 'prepares.cjs'));
});

beforeEach(() => {
  resetLifecycle();
  received = [];
});

afterEach(async () => {
  await lifecycleState().beforeExit.get('error-reports')?.();
  reportQueueSlot.clear();
  recorderSlot.clear();
});

afterAll(() => {
  transactionWorkerSlot.clear();
  ingest.closeAllConnections();
  ingest.close();
});

const traced = () => startNewTrace(() => startInactiveSpan({ name: 'GET /', forceTransaction: true })).end();

describe('the sender with the transaction thread named', () => {
  it('hands transactions to the thread, started with the client’s settings, and sends what it hands back to the DSN’s ingest', async () => {
    const config = { dsn, release: 'r1', environment: 'test', tracesSampleRate: 1 };
    createSentrySender(config);
    traced();
    await until(() => received.length === 1);
    expect(parseEnvelope(received[0]!)[0]).toEqual({ kind: 'transactions', config });
    // At exit, the thread is flushed with the client: both say they are done.
    expect(await lifecycleState().beforeExit.get('error-reports')!()).toEqual([true, true]);
  });

  it('counts as dropped what the thread hands back when the report queue has no room', async () => {
    const counted: string[] = [];
    recorderSlot.write(
      recorderWith({ transaction: (outcome, reason) => counted.push(`${outcome} ${reason}`) }),
    );
    reportQueueSlot.write({ submit: () => Promise.resolve({ kind: 'full' }) } as unknown as ReportQueue);
    createSentrySender({ dsn, release: 'r1', environment: 'test', tracesSampleRate: 1 });
    traced();
    await until(() => counted.length === 1);
    expect(counted).toEqual(['dropped queue_overflow']);
    expect(received).toEqual([]);
  });

  it('starts no thread without tracing: nothing is handed to it', async () => {
    createSentrySender({ dsn, release: 'r1', environment: 'test', tracesSampleRate: 0 });
    traced();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toEqual([]);
  });
});
