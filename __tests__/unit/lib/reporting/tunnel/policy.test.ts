// The tunnel's decisions, without a socket: request metadata and an upload in, a verdict out.
import type { UploadResult } from '@lib/http/upload';
import { admit, forwardFailed, judge, queueFull } from '@lib/reporting/tunnel/policy';

const DSN = 'https://publickey@o1.ingest.example.io/7';
const good = `{"event_id":"${'a'.repeat(32)}","dsn":"${DSN}"}\n{"type":"event"}\n{"message":"hi"}\n`;
const body = (text: string): UploadResult => ({ kind: 'body', body: Buffer.from(text), release: () => {} });
const post = (headers: Record<string, string> = {}) => ({ method: 'POST', headers });

describe('admit: before the body is read', () => {
  it('reads a same-origin POST, and a POST with neither Sec-Fetch-Site nor Origin', () => {
    expect(admit(post({ 'sec-fetch-site': 'same-origin' }))).toBeNull();
    expect(admit(post({ origin: 'https://shop.example', host: 'shop.example' }))).toBeNull();
    expect(admit(post())).toBeNull();
  });

  it('answers another method with 405 and Allow: POST', () => {
    expect(admit({ method: 'GET', headers: {} })).toEqual(
      expect.objectContaining({ status: 405, headers: { Allow: 'POST' } }),
    );
  });

  it.each([
    [
      { 'sec-fetch-site': 'cross-site', origin: 'https://x.example', host: 'x.example' },
      'Sec-Fetch-Site is not same-origin',
    ],
    [{ origin: 'https://evil.example', host: 'shop.example' }, 'Origin is another site'],
    [{ origin: 'not a url <script>', host: 'shop.example' }, 'Origin is not a URL'],
  ])('refuses a cross-site request in fixed words: %p', (headers, words) => {
    const verdict = admit(post(headers));
    expect(verdict).toEqual(
      expect.objectContaining({ status: 403, message: `Cross-site requests are refused (${words}).` }),
    );
    expect(JSON.stringify(verdict)).not.toMatch(/evil|script|cross-site"/);
  });
});

describe('judge: once the body is read', () => {
  it('forwards a checked envelope with the user agent and no other header', () => {
    const verdict = judge(
      post({ 'user-agent': 'UA/1', cookie: 'session=1', 'x-forwarded-for': '10.0.0.1' }),
      body(good),
      DSN,
    );
    expect(verdict).toEqual({
      kind: 'forward',
      envelope: expect.anything(),
      headers: { 'Content-Type': 'application/x-sentry-envelope', 'user-agent': 'UA/1' },
    });
  });

  it.each([
    [{ kind: 'too-large' } as const, 413, 'drain'],
    [{ kind: 'busy' } as const, 503, 'drain'],
    [{ kind: 'too-slow' } as const, 408, 'close'],
  ])(
    'refuses an upload that is %p with %i, closing after, and says what to do with the rest',
    (upload, status, rest) => {
      expect(judge(post(), upload, DSN)).toEqual(
        expect.objectContaining({
          kind: 'answer',
          status,
          rest,
          headers: expect.objectContaining({ Connection: 'close' }),
        }),
      );
    },
  );

  it('asks for Retry-After on a busy tunnel', () => {
    expect(judge(post(), { kind: 'busy' }, DSN)).toEqual(
      expect.objectContaining({ headers: expect.objectContaining({ 'Retry-After': '5' }) }),
    );
  });

  it('hangs up on a browser that went away', () => {
    expect(judge(post(), { kind: 'aborted' }, DSN)).toEqual({ kind: 'hang-up' });
  });

  it.each([
    ['', 400],
    ['not an envelope', 400],
    [good.replace(DSN, 'https://other@o1.ingest.example.io/9'), 403],
    [`${good}{"type":"attachment"}\n{}\n`, 400],
  ])('refuses a body that is not one of our events (%#) and keeps the connection', (text, status) => {
    expect(judge(post(), body(text), DSN)).toEqual(
      expect.objectContaining({ kind: 'answer', status, rest: 'keep' }),
    );
  });
});

describe('forwardFailed', () => {
  it('tells the browser 504 for a slow ingest and 502 for one out of reach', () => {
    expect(forwardFailed('timeout')).toEqual(expect.objectContaining({ status: 504 }));
    expect(forwardFailed('unreachable')).toEqual(expect.objectContaining({ status: 502 }));
  });
});

describe('every answer, in full: its reason (a metric label), status, words and headers', () => {
  const refused = (reason: string, status: number, message: string, rest = 'keep', headers?: object) => ({
    kind: 'answer',
    outcome: 'refused',
    reason,
    status,
    message,
    rest,
    ...(headers ? { headers } : {}),
  });

  it('before the body', () => {
    expect(admit({ method: 'PUT', headers: {} })).toEqual(
      refused('method', 405, 'Use POST.', 'keep', { Allow: 'POST' }),
    );
    expect(admit(post({ 'sec-fetch-site': 'same-site' }))).toEqual(
      refused('cross_site', 403, 'Cross-site requests are refused (Sec-Fetch-Site is not same-origin).'),
    );
  });

  it('after it', () => {
    const close = { Connection: 'close' };
    expect(judge(post(), { kind: 'too-large' }, DSN)).toEqual(
      refused('too_large', 413, 'Envelope too large.', 'drain', close),
    );
    expect(judge(post(), { kind: 'too-slow' }, DSN)).toEqual(
      refused('too_slow', 408, 'The envelope took too long to arrive.', 'close', close),
    );
    expect(judge(post(), { kind: 'busy' }, DSN)).toEqual(
      refused('busy', 503, 'Too many reports at once; try again shortly.', 'drain', {
        'Retry-After': '5',
        ...close,
      }),
    );
    expect(judge(post(), body(''), DSN)).toEqual(refused('empty', 400, 'Empty envelope.'));
    expect(judge(post(), body('junk'), DSN)).toEqual(
      refused('not_an_envelope', 400, 'Not a Sentry envelope.'),
    );
    expect(judge(post(), body(good.replace(DSN, 'https://other@o1.ingest.example.io/9')), DSN)).toEqual(
      refused('foreign_dsn', 403, 'This tunnel only forwards envelopes for its own DSN.'),
    );
  });

  it('when the ingest could not be asked, or the queue is full', () => {
    expect(forwardFailed('timeout')).toEqual({
      ...refused('timeout', 504, 'Error reporting service timed out.'),
      outcome: 'upstream_failed',
    });
    expect(forwardFailed('unreachable')).toEqual({
      ...refused('unreachable', 502, 'Error reporting service unreachable.'),
      outcome: 'upstream_failed',
    });
    expect(queueFull()).toEqual(
      refused(
        'queue_full',
        503,
        'Too many reports are waiting for the reporting service; try again later.',
        'keep',
        { 'Retry-After': '60' },
      ),
    );
  });

  it('cuts a user agent longer than 512 characters', () => {
    const verdict = judge(post({ 'user-agent': 'U'.repeat(600) }), body(good), DSN);
    expect(verdict.kind === 'forward' && verdict.headers['user-agent']).toBe('U'.repeat(512));
  });
});
