// The server's Sentry sender with the thread that prepares transactions named (as the compiled
// server names it: lib/server/start.ts), here a stand-in thread (__fixtures__/prepares.cjs): it is
// started with the client's settings, only with tracing on, and what it hands back reaches the
// DSN's ingest, or is counted when the report queue has no room for it.
import path from 'node:path';
import { startInactiveSpan, startNewTrace } from '@sentry/core';
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { recorderSlot } from '@lib/metrics/record';
import { createSentrySender } from '@lib/reporting/node/sentry-client';
import { transactionWorkerSlot } from '@lib/reporting/node/transaction-thread';
import { reportQueueSlot, type ReportQueue } from '@lib/reporting/queue/queue';
import { type Ingest, startIngest } from '../../../../support/ingest';
import { recorderWith } from '../../../../support/recorder';
import { freePort } from '../../../../support/server';
import { until } from '../../../../support/until';

let ingest: Ingest;
let dsn: string;

beforeAll(async () => {
  ingest = await startIngest(await freePort());
  dsn = `http://publickey@127.0.0.1:${ingest.port}/1`;
  transactionWorkerSlot.write(path.join(__dirname, '__fixtures__', 'prepares.cjs'));
});

beforeEach(() => {
  resetLifecycle();
  ingest.envelopes.length = 0;
});

afterEach(async () => {
  await lifecycleState().beforeExit.get('error-reports')?.();
  reportQueueSlot.clear();
  recorderSlot.clear();
});

afterAll(async () => {
  transactionWorkerSlot.clear();
  await ingest.stop();
});

const traced = () => startNewTrace(() => startInactiveSpan({ name: 'GET /', forceTransaction: true })).end();

describe('the sender with the transaction thread named', () => {
  it('hands transactions to the thread, started with the client’s settings, and sends what it hands back to the DSN’s ingest', async () => {
    const config = { dsn, release: 'r1', environment: 'test', tracesSampleRate: 1 };
    createSentrySender(config);
    traced();
    const [envelope] = await ingest.waitFor(() =>
      ingest.envelopes.length > 0 ? ingest.envelopes : undefined,
    );
    expect(envelope!.header).toEqual({ kind: 'transactions', config });
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
    expect(ingest.envelopes).toEqual([]);
  });

  it('starts no thread without tracing: nothing is handed to it', async () => {
    createSentrySender({ dsn, release: 'r1', environment: 'test', tracesSampleRate: 0 });
    traced();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(ingest.envelopes).toEqual([]);
  });
});
