// A stranger who adds a sampled `sentry-trace` to every request, against a build that traces 1 %
// of requests: the server makes no more transactions than its budget allows (lib/server/
// trace-budget.ts), no more documents say "sampled" than transactions were made, and every
// refusal is counted in /metrics.
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { type Ingest, startIngest } from '../support/ingest';
import { reportingBuild } from '../support/reporting-build';
import { SAMPLED_DIST } from '../support/paths';
import { recordResult } from '../support/results';
import { freePort, type RunningServer, startServer } from '../support/server';

const build = reportingBuild();
/** The reporting build again, tracing at 1 %: same DSN, so the same stand-in ingest. */
const SAMPLED_BUILD = SAMPLED_DIST;
const RATE = 0.01;
const REQUESTS = 1000;
/** The budget's burst (lib/server/trace-budget.ts: TRACE_BURST), as the code says it. */
const BURST = 10;
/** A page rendered per request, so its document carries the trace's meta tags. */
const PAGE = '/__fixtures__/slow?ms=0';

let ingest: Ingest;
let server: RunningServer;
let managementPort: number;

beforeAll(async () => {
  // Built with the reporting build's DSN and SENTRY_TRACES_SAMPLE_RATE=RATE (support/builds.ts).
  const planned = plannedEnv(SAMPLED_BUILD);
  if (planned.SENTRY_DSN !== build.dsn || planned.SENTRY_TRACES_SAMPLE_RATE !== String(RATE))
    throw new Error(`support/builds.ts plans SAMPLED_BUILD otherwise: ${JSON.stringify(planned)}`);
  buildUnlessKept(SAMPLED_BUILD, planned);
  ingest = await startIngest(build.ingestPort);
  managementPort = await freePort();
  server = await startServer({ distDir: SAMPLED_BUILD, env: { MANAGEMENT_PORT: String(managementPort) } });
}, 240_000);

afterAll(async () => {
  await server?.stop();
  await ingest?.stop();
});

const transactionsSince = (from: number) =>
  ingest.envelopes
    .slice(from)
    .filter((envelope) => envelope.items.some(([header]) => header.type === 'transaction'));

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${managementPort}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name));
  return line ? Number(line.split(' ').pop()) : 0;
}

it(`buys at most the budget's transactions with ${REQUESTS} forged "sampled" headers at rate ${RATE}`, async () => {
  const from = ingest.envelopes.length;
  let sampledDocuments = 0;
  let failures = 0;
  const started = performance.now();
  let worstMs = 0;
  for (let i = 0; i < REQUESTS; i += 1) {
    const traceId = i.toString(16).padStart(32, 'f');
    const at = performance.now();
    const res = await fetch(`${server.url}${PAGE}`, {
      headers: {
        'sentry-trace': `${traceId}-${'a'.repeat(16)}-1`,
        baggage: 'sentry-sample_rate=1,sentry-sampled=true',
      },
    });
    const html = await res.text();
    worstMs = Math.max(worstMs, performance.now() - at);
    if (res.status !== 200) failures += 1;
    const meta = /<meta name="sentry-trace" content="([0-9a-f]{32})-[0-9a-f]{16}-([01])"/.exec(html);
    // Every document still names the trace it was asked to join.
    if (meta?.[1] !== traceId) failures += 1;
    if (meta?.[2] === '1') sampledDocuments += 1;
  }
  // Whatever was made has been sent by now (one envelope each, at once to a local ingest).
  await new Promise((resolve) => setTimeout(resolve, 2000));
  const transactions = transactionsSince(from).length;
  const honoured = await metric('app_tracing_inherited_sampled_total{outcome="honoured"}');
  const overBudget = await metric('app_tracing_inherited_sampled_total{outcome="over_budget"}');

  // The budget: its burst plus the rate's share of the requests it saw.
  expect(honoured).toBeLessThanOrEqual(BURST + RATE * REQUESTS);
  expect(honoured + overBudget).toBe(REQUESTS);
  // What was made: the honoured ones, and those the rate sampled of the rest (1 % of ~980, ~10);
  // at most 5 % of the requests, as the issue asks.
  expect(transactions).toBeLessThanOrEqual(REQUESTS * 0.05);
  expect(transactions).toBeGreaterThanOrEqual(honoured);
  // Each one sent is counted as sent.
  expect(await metric('app_tracing_transactions_total{outcome="sent",reason="2xx"}')).toBe(transactions);
  // No document says "sampled" that the server did not make a transaction for.
  expect(sampledDocuments).toBe(transactions);
  expect(failures).toBe(0);

  const note = `${transactions} transactions (${honoured} honoured, ${overBudget} over budget), ${sampledDocuments} documents sampled, in ${Math.round(performance.now() - started)} ms`;
  recordResult({
    scenario: `forged sampled sentry-trace on ${REQUESTS} requests at rate ${RATE}`,
    requests: REQUESTS,
    failures,
    worstLatencyMs: worstMs,
    note,
  });
  process.stdout.write(`[reliability] forged trace: ${note}\n`);
});
