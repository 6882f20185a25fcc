// Hostile input to the error-reporting tunnel: each rejected with its status, nothing forwarded,
// the server healthy afterwards.
import type { Ingest } from '../support/ingest';
import { reportingBuild } from '../support/reporting-build';
import type { RunningServer } from '../support/server';
import { buildRequest, sendRaw } from '../support/raw-http';
import { type ReportingStack, startReportingStack } from '../support/reporting-stack';
import { recordResult } from '../support/results';

const build = reportingBuild();
let stack: ReportingStack;
let ingest: Ingest;
let server: RunningServer;

beforeAll(async () => {
  stack = await startReportingStack();
  ({ server } = stack);
  ingest = stack.ingest!;
});

afterAll(async () => {
  await stack?.stop();
});

function envelopeFor(dsn: string): string {
  return `{"event_id":"${'c'.repeat(32)}","dsn":"${dsn}"}\n{"type":"event"}\n{"message":"reliability"}\n`;
}

const dsn = new URL(build.dsn);
const others: [string, string][] = [
  ['another key', build.dsn.replace(dsn.username, 'otherkey')],
  ['another project', build.dsn.replace(/\/1$/, '/2')],
  ['another host', build.dsn.replace('127.0.0.1', 'ingest.example.org')],
  ['the same port spelled with a leading zero', build.dsn.replace(`:${dsn.port}/`, `:0${dsn.port}/`)],
  ['another port (80)', build.dsn.replace(`:${dsn.port}/`, ':80/')],
];

const cases: [string, () => Buffer, number][] = [
  ['empty body', () => buildRequest({ method: 'POST', target: build.tunnelPath, body: '' }), 400],
  [
    'garbage',
    () => buildRequest({ method: 'POST', target: build.tunnelPath, body: '\u0000\u00ff garbage' }),
    400,
  ],
  [
    'a truncated envelope',
    () =>
      buildRequest({ method: 'POST', target: build.tunnelPath, body: envelopeFor(build.dsn).slice(0, 30) }),
    400,
  ],
  ...others.map(([name, other]): [string, () => Buffer, number] => [
    `an envelope for ${name}`,
    () => buildRequest({ method: 'POST', target: build.tunnelPath, body: envelopeFor(other) }),
    403,
  ]),
  [
    'an oversized body',
    () =>
      buildRequest({
        method: 'POST',
        target: build.tunnelPath,
        body: envelopeFor(build.dsn) + 'x'.repeat(2 * 1024 * 1024),
      }),
    413,
  ],
  ['a GET', () => buildRequest({ target: build.tunnelPath }), 405],
  [
    // Chunked bodies are read like any other (up to the same cap): this one is no envelope.
    'a chunked body that is not an envelope',
    () =>
      Buffer.from(
        `POST ${build.tunnelPath} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
      ),
    400,
  ],
  ...['check_in', 'feedback', 'sessions', 'replay_event', 'attachment', 'client_report'].map(
    (type): [string, () => Buffer, number] => [
      `an envelope with a ${type} item`,
      () =>
        buildRequest({
          method: 'POST',
          target: build.tunnelPath,
          body: `{"event_id":"${'d'.repeat(32)}","dsn":"${build.dsn}"}\n{"type":"${type}"}\n{"x":1}\n`,
        }),
      400,
    ],
  ),
  // What Sentry's ingest would reject (lib/reporting/ingest/ingest-rules.ts): nothing queued.
  ...(
    [
      ['an envelope whose event_id is no UUID', { event_id: 'not-an-id' }, 'event', { message: 'x' }],
      [
        'an event under another id than its envelope’s',
        { event_id: 'd'.repeat(32) },
        'event',
        { event_id: 'e'.repeat(32) },
      ],
      [
        'a transaction that ends before it starts',
        { event_id: 'd'.repeat(32) },
        'transaction',
        {
          start_timestamp: 2,
          timestamp: 1,
          contexts: { trace: { trace_id: 'a'.repeat(32), span_id: 'b'.repeat(16) } },
        },
      ],
      [
        'a session whose status Relay does not know',
        {},
        'session',
        { started: '2026-11-23T00:00:00Z', status: 'fine', attrs: { release: 'r1' } },
      ],
    ] as [string, Record<string, unknown>, string, Record<string, unknown>][]
  ).map(([name, header, type, payload]): [string, () => Buffer, number] => [
    name,
    () =>
      buildRequest({
        method: 'POST',
        target: build.tunnelPath,
        body: `${JSON.stringify({ ...header, dsn: build.dsn })}\n{"type":"${type}"}\n${JSON.stringify(payload)}\n`,
      }),
    400,
  ]),
  [
    'a request another site sent (Sec-Fetch-Site: cross-site)',
    () =>
      buildRequest({
        method: 'POST',
        target: build.tunnelPath,
        headers: [['Sec-Fetch-Site', 'cross-site']],
        body: envelopeFor(build.dsn),
      }),
    403,
  ],
  [
    'a request from another origin',
    () =>
      buildRequest({
        method: 'POST',
        target: build.tunnelPath,
        headers: [['Origin', 'https://evil.example']],
        body: envelopeFor(build.dsn),
      }),
    403,
  ],
];

describe('tunnel input', () => {
  it.each(cases)('rejects %s with %i and forwards nothing', async (name, request, status) => {
    const before = ingest.envelopes.length;
    // The tunnel forwards before it answers, so once a refusal is back nothing is on its way.
    const answer = await sendRaw(server.port, request());
    recordResult({
      scenario: `tunnel: ${name}`,
      requests: 1,
      failures: answer.status === status && ingest.envelopes.length === before ? 0 : 1,
      worstLatencyMs: answer.ms,
    });
    expect(answer.status).toBe(status);
    expect(ingest.envelopes.length).toBe(before);
    expect((await sendRaw(server.port, buildRequest({ target: '/api/health' }))).status).toBe(200);
  });

  it('answers a slow upload with 408 and forwards nothing', async () => {
    const before = ingest.envelopes.length;
    // Declares 4 KiB, sends 10 bytes, then nothing: the tunnel must not wait forever.
    const head = `POST ${build.tunnelPath} HTTP/1.1\r\nHost: x\r\nContent-Length: 4096\r\n\r\n{"dsn":"ht`;
    const answer = await sendRaw(server.port, Buffer.from(head), 20_000);
    recordResult({
      scenario: 'tunnel: a slow upload',
      requests: 1,
      failures: answer.status === 408 && ingest.envelopes.length === before ? 0 : 1,
      worstLatencyMs: answer.ms,
      note: 'upload timeout 10 s',
    });
    expect(answer.status).toBe(408);
    expect(answer.ms).toBeLessThan(15_000);
    expect(ingest.envelopes.length).toBe(before);
  });

  it('still forwards a good envelope afterwards', async () => {
    const answer = await sendRaw(
      server.port,
      buildRequest({ method: 'POST', target: build.tunnelPath, body: envelopeFor(build.dsn) }),
    );
    expect(answer.status).toBe(200);
    expect(server.output()).not.toMatch(/unhandled_rejection|uncaught_exception/);
  });
});
