// The tracer fills its budget with every request it sees, a header or not: a sampled page's next
// requests are honoured again once the traffic has earned it. No Sentry client is made, so the
// decisions are counted and nothing is sent.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type InheritedSampledOutcome, recorderSlot } from '@lib/metrics/record';
import { createRequestTracer } from '@lib/server/trace-requests';
import { recorderWith } from '../../../support/recorder';

describe('a tracer’s budget, filled by the requests it sees', () => {
  const TRACE = `${'e'.repeat(32)}-${'f'.repeat(16)}-1`;
  let app: Server;
  let counted: InheritedSampledOutcome[];
  // A quarter: four requests earn one token. No client is made here, so nothing is sent.
  const tracer = createRequestTracer({ publicFiles: new Set(), untraced: new Set(), sampleRate: 0.25 });

  beforeAll(async () => {
    app = createServer((req, res) => {
      tracer(req, res, '/page');
      res.end('ok');
    });
    app.listen(0, '127.0.0.1');
    await once(app, 'listening');
  });
  beforeEach(() => {
    counted = [];
    recorderSlot.write(recorderWith({ inheritedSampled: (outcome) => counted.push(outcome) }));
  });
  afterAll(() => {
    recorderSlot.clear();
    app.close();
  });

  const ask = (headers: Record<string, string> = {}) =>
    fetch(`http://127.0.0.1:${(app.address() as AddressInfo).port}/page`, { headers }).then((r) => r.text());

  it('honours a sampled header again once requests without one have earned a token', async () => {
    // The burst of 10, and the quarter each of these requests earns itself: 13 honoured.
    for (let i = 0; i < 13; i += 1) await ask({ 'sentry-trace': TRACE });
    await ask({ 'sentry-trace': TRACE });
    expect(counted).toEqual([...Array(13).fill('honoured'), 'over_budget']);
    // A quarter is left; three requests that ask for nothing earn the rest of a token.
    for (let i = 0; i < 3; i += 1) await ask();
    await ask({ 'sentry-trace': TRACE });
    expect(counted.at(-1)).toBe('honoured');
  });
});
