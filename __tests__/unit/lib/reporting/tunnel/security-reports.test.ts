// Browsers' CSP violation reports through the tunnel to Sentry's security endpoint: what is taken,
// how it is scrubbed and split, where it goes (straight, or through the report queue), and its bounds.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { recorderSlot } from '@lib/metrics/record';
import { bodyHeadersFor } from '@lib/reporting/ingest/ingest-worker';
import { sendByKind } from '@lib/reporting/queue/open';
import type { ReportQueue } from '@lib/reporting/queue/queue';
import { createTunnel } from '@lib/reporting/tunnel';
import { CSP_REPORT_TYPE, SECURITY_REPORT_MARK, securityEndpointOf } from '@lib/reporting/ingest/forward';
import {
  createReportRate,
  isSecurityReport,
  judgeSecurityReports,
  MAX_BYTES,
  MAX_FIELD_LENGTH,
  MAX_REPORTS_PER_BATCH,
  REPORTS_TYPE,
  scrubbedReport,
} from '@lib/reporting/tunnel/security-reports';
import { recorderWith } from '../../../../support/recorder';

const bytes = (value: unknown) => Buffer.from(JSON.stringify(value));

/** What report-uri sends for an inline script (Chromium's names). */
const LEGACY = {
  'csp-report': {
    'document-uri': 'https://shop.example/account?token=abc123&page=2',
    referrer: 'https://search.example/',
    'violated-directive': 'script-src-elem',
    'effective-directive': 'script-src-elem',
    'original-policy': "default-src 'self'; script-src 'self'; report-uri /t3st",
    disposition: 'enforce',
    'blocked-uri': 'inline',
    'line-number': 12,
    'column-number': 3,
    'source-file': 'https://shop.example/account',
    'status-code': 200,
    'script-sample': 'const password = "hunter2"',
  },
};

/** What report-to sends: a batch, its CSP entries with the Reporting API's names. */
const BATCH = [
  {
    type: 'csp-violation',
    age: 10,
    url: 'https://shop.example/',
    user_agent: 'Chromium',
    body: {
      documentURL: 'https://shop.example/?email=someone@example.com',
      blockedURL: 'inline',
      effectiveDirective: 'script-src-elem',
      originalPolicy: "script-src 'self'",
      disposition: 'enforce',
      statusCode: 200,
      lineNumber: 4,
      sample: '',
    },
  },
  { type: 'deprecation', age: 1, url: 'https://shop.example/', body: { id: 'x' } },
];

describe('what the tunnel takes for a CSP report', () => {
  it.each([
    [CSP_REPORT_TYPE, true],
    [`${CSP_REPORT_TYPE}; charset=utf-8`, true],
    // HTTP lets white space stand before a parameter's semicolon (RFC 9110 §5.6.6).
    [`${CSP_REPORT_TYPE} ; charset=utf-8`, true],
    ['Application/Reports+JSON', true],
    ['text/plain;charset=UTF-8', false],
    ['application/json', false],
    [undefined, false],
  ])('a content type of %s is a report: %s', (contentType, expected) => {
    expect(isSecurityReport(contentType)).toBe(expected);
  });

  it("forwards report-uri's report with Relay's field names, scrubbed", () => {
    const verdict = judgeSecurityReports(CSP_REPORT_TYPE, bytes(LEGACY));
    expect(verdict.kind).toBe('forward');
    if (verdict.kind !== 'forward') return;
    expect(verdict.reports).toHaveLength(1);
    const report = JSON.parse(verdict.reports[0]!)['csp-report'];
    expect(report['script-sample']).not.toContain('hunter2');
    // Every field Relay reads, under the name it was sent by; nothing else.
    expect(report).toEqual({
      'document-uri': 'https://shop.example/account?token=[Filtered]&page=2',
      'blocked-uri': 'inline',
      referrer: 'https://search.example/',
      'source-file': 'https://shop.example/account',
      'effective-directive': 'script-src-elem',
      'violated-directive': 'script-src-elem',
      'original-policy': "default-src 'self'; script-src 'self'; report-uri /t3st",
      disposition: 'enforce',
      'script-sample': 'const password = "[Filtered]"',
      'status-code': 200,
      'line-number': 12,
      'column-number': 3,
    });
    expect(verdict.dropped).toBe(0);
  });

  it('reads a content type with white space before its parameters as the report it names', () => {
    const verdict = judgeSecurityReports(`${CSP_REPORT_TYPE} ; charset=utf-8`, bytes(LEGACY));
    expect(verdict.kind).toBe('forward');
  });

  // Relay's names (CspRaw's kebab-case aliases), the Reporting API's, and a value scrubbing keeps.
  it.each([
    ['document-uri', 'documentURL', 'https://shop.example/'],
    ['blocked-uri', 'blockedURL', 'https://cdn.example/app.js'],
    ['referrer', 'referrer', 'https://search.example/'],
    ['source-file', 'sourceFile', 'https://shop.example/app.js'],
    ['effective-directive', 'effectiveDirective', 'script-src-elem'],
    ['violated-directive', 'violatedDirective', 'script-src'],
    ['original-policy', 'originalPolicy', "script-src 'self'"],
    ['disposition', 'disposition', 'report'],
    ['script-sample', 'sample', 'alert(1)'],
    ['status-code', 'statusCode', 200],
    ['line-number', 'lineNumber', 4],
    ['column-number', 'columnNumber', 17],
  ])('forwards %s, given by that name or as %s, under that name', (name, modern, value) => {
    // A report needs a directive: the other one, when the field is one.
    const directive =
      name === 'effective-directive'
        ? { 'violated-directive': 'img-src' }
        : { 'effective-directive': 'img-src' };
    expect(scrubbedReport({ ...directive, [name]: value })).toEqual({ ...directive, [name]: value });
    expect(scrubbedReport({ ...directive, [modern]: value })).toEqual({ ...directive, [name]: value });
  });

  it("splits a Reporting API batch into one report each, in report-uri's shape, CSP entries only", () => {
    const verdict = judgeSecurityReports(REPORTS_TYPE, bytes(BATCH));
    if (verdict.kind !== 'forward') throw new Error(verdict.message);
    expect(verdict.reports.map((report) => JSON.parse(report))).toEqual([
      {
        'csp-report': {
          'document-uri': 'https://shop.example/?email=[Filtered]',
          'blocked-uri': 'inline',
          'effective-directive': 'script-src-elem',
          'original-policy': "script-src 'self'",
          disposition: 'enforce',
          'script-sample': '',
          'status-code': 200,
          'line-number': 4,
        },
      },
    ]);
  });

  it('forwards at most a batch of reports, and no field longer than the bound', () => {
    const long = {
      ...BATCH[0]!,
      body: { ...BATCH[0]!.body, originalPolicy: 'x'.repeat(MAX_FIELD_LENGTH + 10) },
    };
    const verdict = judgeSecurityReports(REPORTS_TYPE, bytes(Array(MAX_REPORTS_PER_BATCH + 3).fill(long)));
    if (verdict.kind !== 'forward') throw new Error(verdict.message);
    expect(verdict.reports).toHaveLength(MAX_REPORTS_PER_BATCH);
    expect(verdict.dropped).toBe(3);
    expect(JSON.parse(verdict.reports[0]!)['csp-report']['original-policy']).toHaveLength(MAX_FIELD_LENGTH);
  });

  it('cuts a URL at the same bound as a text', () => {
    const url = `https://cdn.example/${'a'.repeat(MAX_FIELD_LENGTH)}`;
    expect(scrubbedReport({ 'violated-directive': 'img-src', 'blocked-uri': url })!['blocked-uri']).toBe(
      url.slice(0, MAX_FIELD_LENGTH),
    );
  });

  it('forwards a field of 2048 characters whole, and cuts one of 2049 at 2048', () => {
    expect(MAX_FIELD_LENGTH).toBe(2048);
    const policy = (length: number) =>
      scrubbedReport({ 'violated-directive': 'img-src', 'original-policy': 'p'.repeat(length) })![
        'original-policy'
      ];
    expect(policy(2048)).toBe('p'.repeat(2048));
    expect(policy(2049)).toBe('p'.repeat(2048));
  });

  it('keeps only the fields Relay reads, each of the type it reads, and needs a directive', () => {
    expect(
      scrubbedReport({
        'violated-directive': 'img-src',
        'line-number': '12',
        'column-number': -1,
        'status-code': 1.5,
        'blocked-uri': 42,
        cookie: 'session=1',
        // A field of no name is none of them, however its value looks.
        '': 'https://elsewhere.example/',
      }),
    ).toEqual({ 'violated-directive': 'img-src' });
    expect(scrubbedReport({ 'blocked-uri': 'inline' })).toBeNull();
  });

  it('keeps a status, line or column of 0, which browsers send when they do not know it', () => {
    const unknown = { 'status-code': 0, 'line-number': 0, 'column-number': 0 };
    expect(scrubbedReport({ 'violated-directive': 'img-src', ...unknown })).toEqual({
      'violated-directive': 'img-src',
      ...unknown,
    });
  });

  it("leaves out a batch's other kinds of report, even one that carries a CSP report's body", () => {
    // Another kind (a deprecation, a stranger's) is not the security endpoint's, whatever it holds.
    expect(judgeSecurityReports(REPORTS_TYPE, bytes([{ ...BATCH[0]!, type: 'deprecation' }]))).toMatchObject({
      kind: 'refused',
      reason: 'no_reports',
    });
    // Nor does it take a CSP report's place within the batch's bound.
    const crowded = [...Array(MAX_REPORTS_PER_BATCH).fill(BATCH[1]), BATCH[0]];
    const verdict = judgeSecurityReports(REPORTS_TYPE, bytes(crowded));
    if (verdict.kind !== 'forward') throw new Error(verdict.message);
    expect(verdict.reports).toHaveLength(1);
  });

  const NOT_A_REPORT = 'Not a security report.';
  const NO_REPORTS = 'No CSP violation in this report.';
  it.each([
    ['JSON that is no report', CSP_REPORT_TYPE, bytes({ hello: 1 }), 'not_a_report', NOT_A_REPORT],
    [
      'a report that is not an object',
      CSP_REPORT_TYPE,
      bytes({ 'csp-report': [1] }),
      'not_a_report',
      NOT_A_REPORT,
    ],
    ['not JSON', CSP_REPORT_TYPE, Buffer.from('{'), 'not_a_report', NOT_A_REPORT],
    // null is JSON's, and no object: neither a report nor a report's fields.
    ['JSON null', CSP_REPORT_TYPE, bytes(null), 'not_a_report', NOT_A_REPORT],
    ['a report that is null', CSP_REPORT_TYPE, bytes({ 'csp-report': null }), 'not_a_report', NOT_A_REPORT],
    ['a batch that is not a list', REPORTS_TYPE, bytes(BATCH[0]), 'not_a_report', NOT_A_REPORT],
    ['a batch with no CSP entry', REPORTS_TYPE, bytes([BATCH[1]]), 'no_reports', NO_REPORTS],
    [
      'a batch of entries that are no objects, or have no body',
      REPORTS_TYPE,
      bytes([null, 1, { type: 'csp-violation', body: null }, { type: 'csp-violation' }]),
      'no_reports',
      NO_REPORTS,
    ],
    [
      'a report with no directive',
      CSP_REPORT_TYPE,
      bytes({ 'csp-report': { 'blocked-uri': 'x' } }),
      'no_reports',
      NO_REPORTS,
    ],
  ])('refuses %s with a short, fixed 400', (_what, type, body, reason, message) => {
    const verdict = judgeSecurityReports(type, body);
    expect(verdict).toEqual({ kind: 'refused', reason, status: 400, message });
  });
});

describe('the rate CSP reports leave at', () => {
  it('lets a burst through, then one per interval as the bucket fills', () => {
    let time = 0;
    const rate = createReportRate({ perSecond: 2, burst: 3 }, () => time);
    expect([rate.take(), rate.take(), rate.take(), rate.take()]).toEqual([true, true, true, false]);
    time += 499;
    expect(rate.take()).toBe(false);
    time += 1;
    expect(rate.take()).toBe(true);
    expect(rate.take()).toBe(false);
    // Never more than the burst, however long it waited.
    time += 60_000;
    expect([rate.take(), rate.take(), rate.take(), rate.take()]).toEqual([true, true, true, false]);
  });
});

describe("a DSN's security endpoint, and what is sent there", () => {
  it("is Relay's /api/<project>/security/ with the public key", () => {
    expect(securityEndpointOf('https://abc@o1.ingest.sentry.io/42')).toBe(
      'https://o1.ingest.sentry.io/api/42/security/?sentry_key=abc',
    );
    expect(securityEndpointOf('http://k@127.0.0.1:9000/sub/path/7')).toBe(
      'http://127.0.0.1:9000/sub/path/api/7/security/?sentry_key=k',
    );
    jest.spyOn(console, 'error').mockImplementation(() => {});
    expect(() => securityEndpointOf('not a dsn')).toThrow('The tunnel needs a valid DSN');
    jest.restoreAllMocks();
  });

  it('sends a report as application/csp-report, an envelope as an envelope', () => {
    expect(bodyHeadersFor(new URL(securityEndpointOf('https://abc@o1.ingest.sentry.io/42')))).toEqual({
      'Content-Type': 'application/csp-report',
    });
    expect(bodyHeadersFor(new URL('https://o1.ingest.sentry.io/api/42/envelope/?sentry_key=abc'))).toEqual({
      'Content-Type': 'application/x-sentry-envelope',
    });
  });

  it("sends the queue's reports, by their mark, to the security endpoint, without the mark", async () => {
    const calls: [string, string | Uint8Array, Record<string, string>][] = [];
    const answer = { status: 200, rateLimits: null, retryAfter: null, body: '' };
    const send = sendByKind(
      async (body, headers) => (calls.push(['envelope', body, headers]), answer),
      async (body, headers) => (calls.push(['security', body, headers]), answer),
    );
    await send('report', { ...SECURITY_REPORT_MARK, 'user-agent': 'Chromium' });
    await send('envelope', { 'Content-Type': 'application/x-sentry-envelope', 'user-agent': 'Chromium' });
    await send('server envelope', {});
    expect(calls).toEqual([
      ['security', 'report', { 'user-agent': 'Chromium' }],
      ['envelope', 'envelope', { 'Content-Type': 'application/x-sentry-envelope', 'user-agent': 'Chromium' }],
      ['envelope', 'server envelope', {}],
    ]);
  });
});

describe('the tunnel, given CSP reports', () => {
  const PATH = '/t3st';
  let ingest: Server;
  let forwarded: { url: string; headers: IncomingHttpHeaders; body: string }[];
  let ingestStatus: number;
  let dsn: string;

  beforeAll(async () => {
    ingest = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        forwarded.push({ url: req.url ?? '', headers: req.headers, body });
        res.writeHead(ingestStatus).end();
      });
    });
    await new Promise<void>((resolve) => ingest.listen(0, '127.0.0.1', resolve));
    dsn = `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/7`;
  });

  afterAll(async () => {
    ingest.closeAllConnections();
    await new Promise((resolve) => ingest.close(resolve));
  });

  beforeEach(() => {
    forwarded = [];
    ingestStatus = 200;
    jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  });

  afterEach(() => jest.restoreAllMocks());

  /** A tunnel on a server of its own; `post` sends one body to it, `tunnel` tells what it holds. */
  async function serve(options: Partial<Parameters<typeof createTunnel>[0]> = {}) {
    const tunnel = createTunnel({ dsn, path: PATH, timeoutMs: 1000, ...options });
    const app = createServer((req, res) => void tunnel.handle(req, res));
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const post = (body: string | Uint8Array, type: string, headers: Record<string, string> = {}) =>
      fetch(`${base}${PATH}`, {
        method: 'POST',
        body: body as BodyInit,
        headers: { 'content-type': type, ...headers },
      });
    const stop = async () => {
      tunnel.close();
      app.closeAllConnections();
      await new Promise((resolve) => app.close(resolve));
    };
    return { post, stop, tunnel };
  }

  it('forwards each report to the security endpoint, as Relay takes it, and answers 204', async () => {
    const counted: [string, string][] = [];
    recorderSlot.write(recorderWith({ tunnel: (outcome, reason) => counted.push([outcome, reason]) }));
    const { post, stop } = await serve();
    try {
      const res = await post(JSON.stringify(BATCH), REPORTS_TYPE, { 'user-agent': 'Chromium/1' });
      expect(res.status).toBe(204);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(forwarded).toHaveLength(1);
      expect(forwarded[0]!.url).toBe('/api/7/security/?sentry_key=publickey');
      expect(forwarded[0]!.headers['content-type']).toBe('application/csp-report');
      expect(forwarded[0]!.headers['user-agent']).toBe('Chromium/1');
      expect(JSON.parse(forwarded[0]!.body)['csp-report']['effective-directive']).toBe('script-src-elem');
      const legacy = await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE);
      expect(legacy.status).toBe(204);
      expect(forwarded).toHaveLength(2);
      expect(counted).toEqual([
        ['forwarded', 'security_report'],
        ['forwarded', 'security_report'],
      ]);
    } finally {
      recorderSlot.clear();
      await stop();
    }
  });

  it('takes a body of 64 KiB, and refuses one byte more with 413', async () => {
    expect(MAX_BYTES).toBe(64 * 1024);
    const { post, stop } = await serve();
    try {
      const report = JSON.stringify(LEGACY);
      // Padded with white space to the bound: still one report, whole.
      const atBound = Buffer.from(report + ' '.repeat(MAX_BYTES - Buffer.byteLength(report)));
      expect((await post(atBound, CSP_REPORT_TYPE)).status).toBe(204);
      expect((await post(Buffer.concat([atBound, Buffer.from(' ')]), CSP_REPORT_TYPE)).status).toBe(413);
      expect(forwarded).toHaveLength(1);
    } finally {
      await stop();
    }
  });

  it("keeps a tunnel's smaller bound for reports too", async () => {
    const { post, stop } = await serve({ maxBytes: 1024 });
    try {
      const report = JSON.stringify(LEGACY);
      const atBound = Buffer.from(report + ' '.repeat(1024 - Buffer.byteLength(report)));
      expect((await post(atBound, CSP_REPORT_TYPE)).status).toBe(204);
      expect((await post(Buffer.concat([atBound, Buffer.from(' ')]), CSP_REPORT_TYPE)).status).toBe(413);
    } finally {
      await stop();
    }
  });

  it('refuses a body that is no report, a large one, and one from another site, forwarding none', async () => {
    const { post, stop } = await serve();
    try {
      const refused = await post('{"hello":1}', CSP_REPORT_TYPE);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toBe('Not a security report.');
      expect((await post(Buffer.alloc(MAX_BYTES + 1, 0x20), CSP_REPORT_TYPE)).status).toBe(413);
      expect(
        (await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE, { 'sec-fetch-site': 'cross-site' })).status,
      ).toBe(403);
      expect(forwarded).toHaveLength(0);
    } finally {
      await stop();
    }
  });

  it('drops what is past the rate, and says so when nothing of a body was taken', async () => {
    const counted: [string, string][] = [];
    recorderSlot.write(recorderWith({ tunnel: (outcome, reason) => counted.push([outcome, reason]) }));
    const { post, stop } = await serve({ securityRate: { perSecond: 0, burst: 1 } });
    try {
      expect((await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE)).status).toBe(204);
      const refused = await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('60');
      expect(await refused.text()).toBe('The report could not be taken now.');
      expect(forwarded).toHaveLength(1);
      expect(counted).toEqual([
        ['forwarded', 'security_report'],
        ['refused', 'security_rate'],
      ]);
    } finally {
      recorderSlot.clear();
      await stop();
    }
  });

  it("counts the batch's CSP reports it leaves out, past the batch's bound or with no directive", async () => {
    const counted: [string, string][] = [];
    recorderSlot.write(recorderWith({ tunnel: (outcome, reason) => counted.push([outcome, reason]) }));
    const { post, stop } = await serve();
    try {
      const noDirective = { ...BATCH[0]!, body: { ...BATCH[0]!.body, effectiveDirective: undefined } };
      const batch = [noDirective, ...Array(MAX_REPORTS_PER_BATCH + 2).fill(BATCH[0]), BATCH[1]];
      expect((await post(JSON.stringify(batch), REPORTS_TYPE)).status).toBe(204);
      // 13 CSP reports (the deprecation is none): of the first 10 read, one has no directive and 9 go;
      // 3 are past the bound. 4 left out, each counted.
      expect(forwarded).toHaveLength(MAX_REPORTS_PER_BATCH - 1);
      const tally = (outcome: string, reason: string) =>
        counted.filter(([o, r]) => o === outcome && r === reason).length;
      expect(tally('forwarded', 'security_report')).toBe(MAX_REPORTS_PER_BATCH - 1);
      expect(tally('refused', 'security_left_out')).toBe(4);
      expect(counted).toHaveLength(MAX_REPORTS_PER_BATCH + 3);
    } finally {
      recorderSlot.clear();
      await stop();
    }
  });

  it('gives back the bytes of each body it read, taken or refused', async () => {
    const { post, stop, tunnel } = await serve({ securityRate: { perSecond: 0, burst: 1 } });
    try {
      // Taken, refused as no report, refused past the rate: each answered, none still held.
      for (const [body, status] of [
        [JSON.stringify(LEGACY), 204],
        ['{"hello":1}', 400],
        [JSON.stringify(LEGACY), 503],
      ] as const) {
        expect((await post(body, CSP_REPORT_TYPE)).status).toBe(status);
        expect(tunnel.bufferedBytes()).toBe(0);
      }
    } finally {
      await stop();
    }
  });

  it('says the ingest did not take it, and never throws when it cannot be reached', async () => {
    ingestStatus = 500;
    const failing = await serve();
    try {
      expect((await failing.post(JSON.stringify(LEGACY), CSP_REPORT_TYPE)).status).toBe(503);
      // Only a 2xx is the report taken: a redirect, which no one follows, is not.
      ingestStatus = 300;
      expect((await failing.post(JSON.stringify(LEGACY), CSP_REPORT_TYPE)).status).toBe(503);
      ingestStatus = 299;
      expect((await failing.post(JSON.stringify(LEGACY), CSP_REPORT_TYPE)).status).toBe(204);
    } finally {
      await failing.stop();
    }
    const unreachable = await serve({ dsn: 'http://publickey@127.0.0.1:9/7' });
    try {
      expect((await unreachable.post(JSON.stringify(LEGACY), CSP_REPORT_TYPE)).status).toBe(503);
    } finally {
      await unreachable.stop();
    }
  });

  it('puts each report in the report queue, marked for the security endpoint, with the user agent', async () => {
    const submitted: [string, string | Uint8Array, Record<string, string> | undefined][] = [];
    const outcomes = [{ kind: 'queued' }, { kind: 'full' }] as const;
    const queue = {
      submit: async (source: string, body: string | Uint8Array, headers?: Record<string, string>) => {
        submitted.push([source, body, headers]);
        return outcomes[submitted.length - 1] ?? { kind: 'full' };
      },
    } as unknown as ReportQueue;
    const { post, stop } = await serve({ queue });
    try {
      expect((await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE, { 'user-agent': 'Firefox' })).status).toBe(
        204,
      );
      expect(submitted[0]![0]).toBe('browser');
      expect(submitted[0]![2]).toEqual({ ...SECURITY_REPORT_MARK, 'user-agent': 'Firefox' });
      expect(JSON.parse(String(submitted[0]![1]))).toHaveProperty('csp-report');
      // The queue's share for browsers full: nothing taken, the browser is told.
      expect((await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE)).status).toBe(503);
      expect(forwarded).toHaveLength(0);
    } finally {
      await stop();
    }
  });

  it("answers by the ingest's status when the queue sent the report at once: taken only on a 2xx", async () => {
    let status = 0;
    const queue = {
      submit: async () => ({
        kind: 'answered',
        reply: { status, rateLimits: null, retryAfter: null, body: '' },
      }),
    } as unknown as ReportQueue;
    const { post, stop } = await serve({ queue });
    try {
      // A redirect is followed by no one; a 400 is Relay refusing the report.
      for (const [answered, answer] of [
        [200, 204],
        [299, 204],
        [300, 503],
        [400, 503],
      ] as const) {
        status = answered;
        const res = await post(JSON.stringify(LEGACY), CSP_REPORT_TYPE);
        expect([answered, res.status]).toEqual([answered, answer]);
      }
    } finally {
      await stop();
    }
  });
});
