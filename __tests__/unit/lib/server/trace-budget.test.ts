// Who decides what is traced: the budget alone, and a real tracer and client whose own rate
// samples (almost) nothing, so every transaction sent was an inherited decision honoured.
import { recorderWith } from '../../../support/recorder';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { type InheritedSampledOutcome, recorderSlot } from '@lib/metrics/record';
import { createSentrySender } from '@lib/reporting/node/sentry-client';
import { traceMetaOf } from '@lib/reporting/trace-meta';
import { createTraceBudget } from '@lib/server/trace-budget';
import { createRequestTracer } from '@lib/server/trace-requests';
import { type Ingest, startIngest } from '../../../support/ingest';
import { freePort } from '../../../support/server';

describe('the budget of inherited "sampled" decisions', () => {
  it('starts with its burst, then fills by the rate of the requests seen', () => {
    const budget = createTraceBudget(0.1, 3);
    const taken = (n: number) =>
      Array.from({ length: n }, () => {
        budget.earn();
        return budget.take();
      }).filter(Boolean).length;
    // Three at once, then one in ten: 3 + 0.1 × 3 (earned meanwhile) = 3.3, so 3.
    expect(taken(3)).toBe(3);
    // 0.3 left; 100 more requests earn 10 more.
    expect(taken(100)).toBe(10);
  });

  it('never holds more than its burst, however quiet the traffic was', () => {
    const budget = createTraceBudget(1, 2);
    for (let i = 0; i < 1000; i += 1) budget.earn();
    expect([budget.take(), budget.take(), budget.take()]).toEqual([true, true, false]);
  });

  it('at rate 1 honours every request, as the rate would sample every one anyway', () => {
    const budget = createTraceBudget(1, 0);
    for (let i = 0; i < 100; i += 1) {
      budget.earn();
      expect(budget.take()).toBe(true);
    }
  });
});

describe('a forged "sampled" header on every request', () => {
  const TRACE_ID = 'c'.repeat(32);
  const PARENT = 'd'.repeat(16);
  let ingest: Ingest;
  let app: Server;
  const counted: InheritedSampledOutcome[] = [];
  const documents: (string | undefined)[] = [];
  // The configured rate: almost never sampled by the server itself.
  const RATE = 1e-9;
  const tracer = createRequestTracer({ publicFiles: new Set(), untraced: new Set(), sampleRate: RATE });

  beforeAll(async () => {
    resetLifecycle();
    recorderSlot.write(recorderWith({ inheritedSampled: (outcome) => counted.push(outcome) }));
    ingest = await startIngest(await freePort());
    createSentrySender({
      dsn: `http://publickey@127.0.0.1:${ingest.port}/1`,
      release: 'r1',
      environment: 'test',
      tracesSampleRate: RATE,
    });
    app = createServer((req, res) => {
      tracer(req, res, '/page');
      documents.push(traceMetaOf(req)?.sentryTrace);
      res.end('ok');
    });
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
  });

  afterAll(async () => {
    recorderSlot.clear();
    await ingest.stop();
    app.close();
  });

  it('buys no more transactions than the burst, and the documents say only what the server decided', async () => {
    for (let i = 0; i < 40; i += 1) {
      await fetch(`http://127.0.0.1:${(app.address() as AddressInfo).port}/page`, {
        headers: { 'sentry-trace': `${TRACE_ID}-${PARENT}-1` },
      }).then((r) => r.text());
    }
    await lifecycleState().beforeExit.get('error-reports')!();
    const transactions = ingest.envelopes.filter((envelope) =>
      envelope.items.some(([header]) => header.type === 'transaction'),
    );
    // The burst (10), and 40 × 1e-9 earned: nothing more.
    expect(transactions).toHaveLength(10);
    expect(counted.filter((c) => c === 'honoured')).toHaveLength(10);
    expect(counted.filter((c) => c === 'over_budget')).toHaveLength(30);
    // Every document keeps the trace it was asked to join; only the honoured ten say "sampled".
    expect(documents).toHaveLength(40);
    for (const meta of documents) expect(meta).toMatch(new RegExp(`^${TRACE_ID}-[0-9a-f]{16}-[01]$`));
    expect(documents.filter((meta) => meta!.endsWith('-1'))).toHaveLength(10);
  });
});
