// The error-reporting service misbehaving: refusing connections, hanging, rate limiting, failing.
// Pages still load, health stays pass, the tunnel answers within its timeout, nothing goes
// unhandled. And an error value that throws when read still gets an answer.
import type { IngestMode } from '../support/ingest';
import { reportingBuild } from '../support/reporting-build';
import type { RunningServer } from '../support/server';
import { buildRequest, sendRaw } from '../support/raw-http';
import { type ReportingStack, startReportingStack } from '../support/reporting-stack';
import { recordResult } from '../support/results';

const build = reportingBuild();
/** The tunnel's own timeout is 5 s; allow for a loaded machine. */
const TUNNEL_DEADLINE_MS = 7000;
let stack: ReportingStack;
let server: RunningServer;

beforeAll(async () => {
  stack = await startReportingStack();
  ({ server } = stack);
});

afterAll(async () => {
  await stack?.stop();
});

const envelope = `{"event_id":"${'d'.repeat(32)}","dsn":"${build.dsn}"}\n{"type":"event"}\n{"message":"fault"}\n`;

// The tunnel takes an envelope for later (202) whenever the ingest does not: the report queue holds
// it. Once the queue holds anything, later envelopes wait behind it (202) rather than being tried.
const faults: [string, IngestMode | 'refusing', number[]][] = [
  ['refusing connections', 'refusing', [202]],
  ['hanging', 'hanging', [202]],
  ['answering 429 with retry-after', 'rate-limited', [429, 202]],
  ['answering 500', 'failing', [202]],
];

describe('when the ingest misbehaves', () => {
  it.each(faults)(
    '%s: pages load, health passes, the tunnel answers in time',
    async (name, mode, tunnelStatuses) => {
      if (mode === 'refusing') {
        await stack.ingest?.stop();
        stack.ingest = null;
      } else {
        const ingest = stack.ingest ?? (await stack.restartIngest());
        ingest.setMode(mode);
      }
      const answers = [
        await sendRaw(server.port, buildRequest({ target: '/missing' })),
        await sendRaw(server.port, buildRequest({ target: '/__fixtures__/render-error' })),
        await sendRaw(server.port, buildRequest({ target: '/api/health' })),
        // A server error makes the server's own client try to send a report to the broken ingest.
        await sendRaw(server.port, buildRequest({ target: '/__fixtures__/server-error' })),
      ];
      const tunnel = await sendRaw(
        server.port,
        buildRequest({ method: 'POST', target: build.tunnelPath, body: envelope }),
        15_000,
      );
      const health = JSON.parse(answers[2]!.body);
      const failures = [
        answers[0]!.status !== 404,
        answers[1]!.status !== 200,
        answers[2]!.status !== 200 || health.status === 'fail',
        answers[3]!.status !== 500,
        !tunnelStatuses.includes(tunnel.status) || tunnel.ms > TUNNEL_DEADLINE_MS,
      ].filter(Boolean).length;
      recordResult({
        scenario: `fault: ingest ${name}`,
        requests: answers.length + 1,
        failures,
        worstLatencyMs: Math.max(tunnel.ms, ...answers.map((a) => a.ms)),
        note: `tunnel answered ${tunnel.status}`,
      });
      expect(answers.map((a) => a.status)).toEqual([404, 200, 200, 500]);
      // The ingest is not one of health's checks: its faults cannot fail readiness. (Whether this
      // busy machine's event loop makes it 'warn' is not what this test is about.)
      expect(health.status).not.toBe('fail');
      expect(Object.keys(health.checks).sort()).toEqual([
        'eventloop:delay',
        'memory:utilization',
        'server:lifecycle',
      ]);
      expect(answers[3]!.body).toContain('Sorry, there is a problem with the service');
      expect(tunnelStatuses).toContain(tunnel.status);
      expect(tunnel.ms).toBeLessThan(TUNNEL_DEADLINE_MS);
    },
  );

  it('left no unhandled rejection or uncaught exception behind', async () => {
    const ingest = stack.ingest ?? (await stack.restartIngest());
    ingest.setMode('ok');
    // Wait until every sender the hanging ingest held (the tunnel, the server's own report) has hit
    // its own timeout and closed the connection: only then would a rejection have surfaced.
    await ingest.waitFor(() => (ingest.heldOpen() === 0 ? true : undefined));
    expect(server.output()).not.toMatch(/unhandled_rejection|uncaught_exception|UnhandledPromiseRejection/);
    expect(server.child.exitCode).toBeNull();
  });
});

describe('an error on the error path', () => {
  it('still yields the service-problem screen when the error value throws when read', async () => {
    const answer = await sendRaw(server.port, buildRequest({ target: '/__fixtures__/hostile-error' }));
    recordResult({
      scenario: 'fault: error value that throws when read',
      requests: 1,
      failures: answer.status === 500 ? 0 : 1,
      worstLatencyMs: answer.ms,
    });
    expect(answer.status).toBe(500);
    expect(answer.body).toContain('Sorry, there is a problem with the service');
    expect((await sendRaw(server.port, buildRequest({ target: '/api/health/live' }))).status).toBe(200);
  });
});
