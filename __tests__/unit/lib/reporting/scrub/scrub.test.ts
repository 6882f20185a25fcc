import { type Event, Scope, type SpanJSON } from '@sentry/core';
import {
  asRoute,
  FILTERED,
  scrubBreadcrumbOrDrop,
  scrubEvent,
  scrubTransaction,
  scrubFields,
  scrubSpan,
  scrubText,
  scrubUrl,
  SCRUB_RULES,
} from '@lib/reporting/scrub';
import { passesLuhn, SECRET_PATTERNS } from '@lib/reporting/scrub/patterns';
import { SECRET_CASES, SECRET_KEY_CASES } from '../../../../support/secrets';

describe('the secret table', () => {
  const rules = [...SECRET_PATTERNS.map((entry) => entry.name), ...SCRUB_RULES];

  it('has a row for every pattern and rule, and names only patterns and rules that exist', () => {
    const covered = new Set([...SECRET_CASES, ...SECRET_KEY_CASES].map((row) => row.rule));
    expect(rules.filter((rule) => !covered.has(rule))).toEqual([]);
    expect([...covered].filter((rule) => !rules.includes(rule))).toEqual([]);
  });

  it.each(SECRET_CASES.filter((row) => SECRET_PATTERNS.some((entry) => entry.name === row.rule)))(
    'the $rule pattern alone removes the $shape',
    ({ rule, text, secret }) => {
      const { pattern, replace } = SECRET_PATTERNS.find((entry) => entry.name === rule)!;
      const out = replace ? text.replace(pattern, replace) : text.replace(pattern, FILTERED);
      expect(out).not.toContain(secret);
      expect(out).toContain(FILTERED);
    },
  );

  it('takes card numbers only when they pass the Luhn check and stand alone', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    // An id that fails Luhn, a millisecond timestamp that fails it, digits inside a hex id.
    for (const text of ['order 4111111111111112 failed', 'at 1732326465123', 'id 4a1111111111111111111b'])
      expect(scrubText(text)).toBe(text);
    expect(scrubText('card 4111-1111-1111-1111 declined')).toBe(`card ${FILTERED} declined`);
  });

  it('takes a PEM key cut off before its END line, to the end of the text', () => {
    expect(scrubText('key: -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg')).toBe(`key: ${FILTERED}`);
  });

  it('keeps `pin` only inside other words', () => {
    expect(scrubText('shipping=standard mapping=on')).toBe('shipping=standard mapping=on');
    expect(scrubText('user_pin=1234 PIN: 5678')).toBe(`user_pin=${FILTERED} PIN: ${FILTERED}`);
  });

  it.each(SECRET_KEY_CASES)('removes a $shape from extra and contexts', ({ value, secret }) => {
    const out = scrubEvent({
      event_id: 'k1',
      extra: { found: value },
      contexts: { lookup: { found: value } },
    });
    const raw = JSON.stringify(out);
    expect(raw).not.toContain(secret);
    expect(Object.keys(out.extra?.found as object)).toEqual([FILTERED]);
  });

  it('keeps both of two keys that scrub to the same text', () => {
    const out = scrubEvent({ event_id: 'k2', extra: { found: { 'a@example.com': 1, 'b@example.com': 2 } } });
    expect(out.extra?.found).toEqual({ [FILTERED]: 1, [`${FILTERED} (2)`]: 2 });
  });
});

describe('scrubUrl', () => {
  it.each([
    ['https://x.test/a?token=abc&page=2', `https://x.test/a?token=${FILTERED}&page=2`],
    ['/cb?code=xyz&state=s1', `/cb?code=${FILTERED}&state=${FILTERED}`],
    [
      '/a?api_key=1&apiKey=2&X-Amz-Signature=3',
      `/a?api_key=${FILTERED}&apiKey=${FILTERED}&X-Amz-Signature=${FILTERED}`,
    ],
    [
      '/a?password=p&passwd=q&session_id=r&auth=s',
      `/a?password=${FILTERED}&passwd=${FILTERED}&session_id=${FILTERED}&auth=${FILTERED}`,
    ],
    ['/a?Email=a%40b.co', `/a?Email=${FILTERED}`],
    ['/a?to=person@example.com&x=1', `/a?to=${FILTERED}&x=1`],
    ['/a?to=person%40example.com', `/a?to=${FILTERED}`],
    ['/cb#access_token=t0k&expires_in=3600', `/cb#access_token=${FILTERED}&expires_in=3600`],
    ['/docs#section-2', '/docs#section-2'],
    ['/users/person@example.com/profile', `/users/${FILTERED}/profile`],
    [
      `/login?next=${encodeURIComponent('https://x.test/cb?token=abc&id=1')}`,
      `/login?next=https%3A%2F%2Fx.test%2Fcb%3Ftoken%3D${FILTERED}%26id%3D1`,
    ],
    ['https://user:pw@x.test/a', `https://${FILTERED}@x.test/a`],
    ['/plain/path', '/plain/path'],
    ['/a?flag&q=shoes', '/a?flag&q=shoes'],
  ])('%s → %s', (input, expected) => {
    expect(scrubUrl(input)).toBe(expected);
  });

  it('keeps parameter names that are malformed, and still filters them when they look secret', () => {
    expect(scrubUrl('/a?%E0%A4%A=1&tok%65n=2')).toBe(`/a?%E0%A4%A=1&tok%65n=${FILTERED}`);
  });
});

describe('scrubText', () => {
  it('replaces e-mail addresses anywhere', () => {
    expect(scrubText('Cannot load user jane.doe+test@example.co.uk (id 7)')).toBe(
      `Cannot load user ${FILTERED} (id 7)`,
    );
  });

  it.each(SECRET_CASES)('removes a $shape from free text', ({ text, secret }) => {
    const out = scrubText(text);
    expect(out).not.toContain(secret);
    // Where it stood: plain, or encoded inside the parameter that carried it.
    expect(out.includes(FILTERED) || out.includes(encodeURIComponent(FILTERED))).toBe(true);
  });

  it.each([
    ['Cannot read properties of undefined (reading "id")'],
    ['Request failed with status 500 after 3 retries'],
    ['at handler (webpack://app/./node_modules/@sentry/core/build/index.js:10:5)'],
    ['page=2&sort=asc'],
  ])('leaves text without secrets alone: %s', (text) => {
    expect(scrubText(text)).toBe(text);
  });

  it('keeps what is around a secret', () => {
    expect(scrubText('login failed with password=hunter2 for user 7')).toBe(
      `login failed with password=${FILTERED} for user 7`,
    );
    const header = scrubText('Authorization: Bearer abc.def');
    expect(header.startsWith(`Authorization: ${FILTERED}`)).toBe(true);
    expect(header).not.toContain('abc.def');
  });
});

describe('asRoute', () => {
  const routeOf = (path: string) => (path.startsWith('/reset/') ? '/reset/[token]' : undefined);

  it('names the route instead of its concrete dynamic segments, keeping the query', () => {
    expect(asRoute('/reset/abc123?x=1', routeOf)).toBe('/reset/[token]?x=1');
    expect(asRoute('https://app.test/reset/abc123', routeOf, 'https://app.test')).toBe(
      'https://app.test/reset/[token]',
    );
  });

  it('leaves other origins and unknown paths alone', () => {
    expect(asRoute('https://other.test/reset/abc123', routeOf, 'https://app.test')).toBe(
      'https://other.test/reset/abc123',
    );
    expect(asRoute('/elsewhere/abc', routeOf)).toBe('/elsewhere/abc');
  });
});

describe('scrubFields (the fallback log line)', () => {
  it.each(SECRET_CASES)('removes a $shape from the message and the stack', ({ text, secret }) => {
    const out = JSON.stringify(
      scrubFields({ message: text, stack: `Error: ${text}\n    at x (/app/a.js:1:1)` }),
    );
    expect(out).not.toContain(secret);
  });
});

describe('scrubEvent', () => {
  const event: Event = {
    event_id: 'e1',
    message: 'failed for bob@example.com',
    request: {
      url: 'https://app.test/orders?token=secret&id=4',
      query_string: 'token=secret&id=4',
      method: 'GET',
      cookies: { session: 'abc' },
      headers: {
        'User-Agent': 'UA/1',
        Cookie: 'session=abc',
        Authorization: 'Bearer x',
        Referer: 'https://app.test/?token=s',
      },
      data: { password: 'p' },
      env: { REMOTE_ADDR: '10.0.0.1' },
    },
    user: { ip_address: '203.0.113.9', email: 'bob@example.com' },
    breadcrumbs: [
      { category: 'navigation', data: { from: '/a?token=1', to: '/b?code=2' } },
      { category: 'fetch', data: { url: '/api/x?secret=3', method: 'GET' } },
    ],
    exception: { values: [{ type: 'Error', value: 'no account for bob@example.com' }] },
    tags: { route: '/orders', url: '/orders?token=secret' },
  };

  it('keeps only the user agent of the request headers, and no cookies, body or environment', () => {
    const out = scrubEvent(event);
    expect(out.request).toEqual({
      method: 'GET',
      url: `https://app.test/orders?token=${FILTERED}&id=4`,
      query_string: `token=${FILTERED}&id=4`,
      headers: { 'User-Agent': 'UA/1' },
    });
  });

  it('drops the user (and with it any IP address)', () => {
    expect(scrubEvent(event).user).toBeUndefined();
  });

  it('scrubs breadcrumbs, messages, exception values and tags', () => {
    const out = scrubEvent(event);
    expect(out.breadcrumbs?.[0]?.data).toEqual({ from: `/a?token=${FILTERED}`, to: `/b?code=${FILTERED}` });
    expect(out.breadcrumbs?.[1]?.data).toEqual({ url: `/api/x?secret=${FILTERED}`, method: 'GET' });
    expect(out.message).toBe(`failed for ${FILTERED}`);
    expect(out.exception?.values?.[0]?.value).toBe(`no account for ${FILTERED}`);
    expect(out.tags).toEqual({ route: '/orders', url: `/orders?token=${FILTERED}` });
    expect(JSON.stringify(out)).not.toMatch(/secret&|bob@|abc|Bearer|203\.0\.113/);
  });

  it.each(SECRET_CASES)(
    'removes a $shape from every field of an event it could hide in',
    ({ text, secret }) => {
      const hiding: Event = {
        event_id: 'e3',
        message: text,
        exception: {
          values: [
            {
              type: 'Error',
              value: text,
              stacktrace: { frames: [{ filename: `https://app.test/_next/x.js?${text}`, function: 'f' }] },
            },
          ],
        },
        breadcrumbs: [
          { category: 'fetch', message: text, data: { url: `/api/x?q=${encodeURIComponent(text)}` } },
        ],
        request: { url: `https://app.test/page?note=${encodeURIComponent(text)}` },
        tags: { note: text },
        extra: {
          __serialized__: { headers: { Authorization: 'Bearer abc', 'X-Note': text } },
          nested: [{ note: text }],
        },
        contexts: { checkout: { note: text } },
      };
      const out = JSON.stringify(scrubEvent(hiding));
      expect(out).not.toContain(secret);
      expect(out).not.toContain(encodeURIComponent(secret));
      expect(out).not.toContain('Bearer abc');
    },
  );

  it('empties secret-named fields of extra, contexts and tags, whatever their value looks like', () => {
    const out = scrubEvent({
      event_id: 'e5',
      extra: { password: 'opaque-1', user: { sessionId: 'opaque-2' }, count: 3 },
      contexts: { checkout: { cardToken: 'opaque-3', step: 'pay' } },
      tags: { apiKey: 'opaque-4', route: '/pay' },
    });
    expect(out.extra).toEqual({ password: FILTERED, user: { sessionId: FILTERED }, count: 3 });
    expect(out.contexts).toEqual({ checkout: { cardToken: FILTERED, step: 'pay' } });
    expect(out.tags).toEqual({ apiKey: FILTERED, route: '/pay' });
  });

  it('replaces whole what lies deeper than twelve levels, so no shape of value costs more', () => {
    /** `leaf` under `levels` objects: { a: { a: … leaf } }. */
    const nested = (levels: number, leaf: unknown): unknown => {
      let value = leaf;
      for (let i = 0; i < levels; i += 1) value = { a: value };
      return value;
    };
    // extra (depth 1) → 10 more levels: the leaf, at depth 12, is still read.
    expect(JSON.stringify(scrubEvent({ event_id: 'd1', extra: nested(10, 'kept-leaf') as never }))).toContain(
      'kept-leaf',
    );
    // 20 levels: the part below depth 12 goes whole, leaf and all.
    const deep = JSON.stringify(scrubEvent({ event_id: 'd2', extra: nested(20, 'deep-leaf') as never }));
    expect(deep).not.toContain('deep-leaf');
    expect(deep).toContain(FILTERED);
    // 100,000 levels, as a stranger may post to the tunnel: no stack overflow, the same answer.
    const abyss = scrubEvent({ event_id: 'd3', extra: nested(100_000, 'abyss-leaf') as never });
    expect(abyss.event_id).toBe('d3');
    expect(JSON.stringify(abyss.extra).length).toBeLessThan(200);
  });

  it('keeps what operators need: ids, release, levels, stack frames and their debug ids', () => {
    const kept: Event = {
      event_id: 'e4',
      level: 'error',
      release: '0f340db1446f57dc8fc42e96378a43e6a7d70147',
      exception: {
        values: [
          {
            type: 'TypeError',
            value: 'x is not a function',
            stacktrace: { frames: [{ filename: '/app/a.js', lineno: 3, colno: 9 }] },
          },
        ],
      },
      debug_meta: {
        images: [
          { type: 'sourcemap', code_file: '/app/a.js', debug_id: '5f2c1c1e-8d6a-4b6f-9d3a-1c2b3d4e5f60' },
        ],
      },
      tags: { route: '/reset/[token]', reference: 'ABCDEF12' },
    };
    expect(scrubEvent(kept)).toEqual(kept);
  });

  it("scrubs the trace's sampling context the envelope header is made of, and leaves the SDK's other notes alone", () => {
    const scope = new Scope().setExtra('token', 'kept: the SDK reads it back and never sends it');
    const out = scrubEvent({
      event_id: 'm1',
      sdkProcessingMetadata: {
        capturedSpanScope: scope,
        dynamicSamplingContext: {
          trace_id: 'a'.repeat(32),
          sample_rand: '0.4190849048773784',
          sampled: 'true',
          transaction: 'GET /reset?token=s3cr3t-in-dsc',
          release: 'jane@example.com',
        },
      },
    });
    expect(out.sdkProcessingMetadata!.capturedSpanScope).toBe(scope);
    expect(out.sdkProcessingMetadata!.dynamicSamplingContext).toEqual({
      trace_id: 'a'.repeat(32),
      // 16 digits that pass Luhn's check: as a number, not a card.
      sample_rand: '0.4190849048773784',
      sampled: 'true',
      transaction: `GET /reset?token=${FILTERED}`,
      release: FILTERED,
    });
  });

  it('does not change the event it was given', () => {
    const copy = structuredClone(event);
    scrubEvent(event);
    expect(event).toEqual(copy);
  });

  it('never throws: an event it cannot read is reduced to its id', () => {
    const hostile = { event_id: 'e2', level: 'error' } as Event;
    Object.defineProperty(hostile, 'request', {
      enumerable: true,
      get() {
        throw new Error('boom');
      },
    });
    expect(() => scrubEvent(hostile)).not.toThrow();
    expect(scrubEvent(hostile)).toEqual({
      event_id: 'e2',
      level: 'error',
      message: 'Event dropped by the scrubber',
    });
  });
});

describe('scrubTransaction', () => {
  const routeOf = (path: string) => (path.startsWith('/orders/') ? '/orders/[id]' : undefined);
  const options = { routeOf, origin: 'https://app.test' };
  const transaction = (): Event => ({
    type: 'transaction',
    transaction: '/orders/[id]',
    contexts: {
      trace: {
        trace_id: 'a'.repeat(32),
        span_id: 'b'.repeat(16),
        data: {
          'url.full': 'https://app.test/orders/42?token=s3cr3t',
          'http.response.status_code': 200,
        },
      },
    },
    spans: [
      {
        span_id: 'c'.repeat(16),
        trace_id: 'a'.repeat(32),
        start_timestamp: 1,
        op: 'http.client',
        description: 'GET https://app.test/orders/42?api_key=s3cr3t',
        data: {
          url: '/orders/42',
          'http.url': 'https://app.test/orders/42',
          'http.response.status_code': 404,
        },
        status: 'ok',
      },
      {
        span_id: 'd'.repeat(16),
        trace_id: 'a'.repeat(32),
        start_timestamp: 1,
        op: 'resource.script',
        description: '/_next/static/chunks/main.js',
        data: {},
        status: 'ok',
      },
    ],
  });

  it('names every URL of the app by its route, and scrubs what secrets the rest holds', () => {
    const out = scrubTransaction(transaction(), options)!;
    expect(out.contexts!.trace!.data!['url.full']).toBe('https://app.test/orders/[id]?token=[Filtered]');
    expect(out.spans![0]!.description).toBe('GET https://app.test/orders/[id]?api_key=[Filtered]');
    expect(out.spans![0]!.data).toMatchObject({
      url: '/orders/[id]',
      'http.url': 'https://app.test/orders/[id]',
    });
    expect(out.spans![1]!.description).toBe('/_next/static/chunks/main.js');
    expect(JSON.stringify(out)).not.toMatch(/orders\/42|s3cr3t/);
  });

  it('keeps the status codes the secret names would otherwise take', () => {
    const out = scrubTransaction(transaction(), options)!;
    expect(out.contexts!.trace!.data!['http.response.status_code']).toBe(200);
    expect(out.spans![0]!.data!['http.response.status_code']).toBe(404);
  });

  it('drops a transaction it cannot scrub rather than send it half scrubbed', () => {
    const broken = transaction();
    Object.defineProperty(broken, 'spans', {
      get() {
        throw new Error('hostile getter');
      },
    });
    expect(scrubTransaction(broken, options)).toBeNull();
  });
});

describe('scrubBreadcrumbOrDrop', () => {
  it('drops console breadcrumbs, which can hold anything a developer logged', () => {
    expect(scrubBreadcrumbOrDrop({ category: 'console', message: 'user token abc' })).toBeNull();
  });

  it('empties secret-named fields of breadcrumb data, whatever their value looks like', () => {
    const crumb = scrubBreadcrumbOrDrop({
      category: 'fetch',
      data: { method: 'POST', attempt: 2, token: 'plainword', session: 42, orderId: 'A-17' },
    });
    expect(crumb?.data).toEqual({
      method: 'POST',
      attempt: 2,
      token: FILTERED,
      session: FILTERED,
      orderId: 'A-17',
    });
  });

  it('scrubs navigation messages', () => {
    expect(scrubBreadcrumbOrDrop({ category: 'navigation', message: '/a?token=1' })?.message).toBe(
      `/a?token=${FILTERED}`,
    );
  });
});

describe('scrubSpan (a span as beforeSendSpan gets it: INP and every span of a transaction)', () => {
  const span = (description: string, data: Record<string, unknown>) =>
    ({
      span_id: 'd'.repeat(16),
      trace_id: 'c'.repeat(32),
      start_timestamp: 1,
      timestamp: 2,
      description,
      data,
    }) as unknown as SpanJSON;

  it.each(SECRET_CASES)('removes $shape from the element it names and from its data', ({ text, secret }) => {
    const out = scrubSpan(
      span(`body > div > button#${text}`, {
        'browser.web_vital.inp.target': text,
        'ui.component_name': text,
      }),
    );
    expect(JSON.stringify(out)).not.toContain(secret);
  });

  it('names URLs by their route, empties secret-named data and keeps its ids, times and status codes', () => {
    const out = scrubSpan(
      span('GET https://app.example/reset/abc?token=t', {
        'url.full': 'https://app.example/reset/abc?x=1',
        apiKey: 123,
        'http.response.status_code': 200,
        'browser.web_vital.inp.value': 80,
      }),
      {
        routeOf: (path) => (path.startsWith('/reset/') ? '/reset/[token]' : undefined),
        origin: 'https://app.example',
      },
    );
    expect(out).toMatchObject({
      span_id: 'd'.repeat(16),
      trace_id: 'c'.repeat(32),
      start_timestamp: 1,
      timestamp: 2,
      description: `GET https://app.example/reset/[token]?token=${FILTERED}`,
      data: {
        'url.full': 'https://app.example/reset/[token]?x=1',
        apiKey: FILTERED,
        'http.response.status_code': 200,
        'browser.web_vital.inp.value': 80,
      },
    });
  });

  it('never throws: a span it cannot read goes with its ids and times only', () => {
    const hostile = span('x', {});
    Object.defineProperty(hostile, 'data', {
      get() {
        throw new Error('hostile');
      },
    });
    const out = scrubSpan(hostile);
    expect(out.description).toBe(FILTERED);
    expect(out.span_id).toBe('d'.repeat(16));
  });
});
