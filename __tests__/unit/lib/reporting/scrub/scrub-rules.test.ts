// The scrubber's rules one at a time, by exact output (scrub.test.ts holds the table of secrets):
// what passes as the SDK wrote it, which headers an event keeps, how deep a value is followed, and
// how a parameter's value is read before it is checked.
import type { Event, SpanJSON } from '@sentry/core';
import {
  scrubBreadcrumbOrDrop,
  scrubEvent,
  scrubFields,
  scrubSamplingContext,
  scrubSpan,
  scrubSpanItems,
  scrubText,
  scrubUrl,
} from '@lib/reporting/scrub';
import { MAX_DEPTH } from '@lib/reporting/scrub/deep';

/** A Visa test number: 16 digits that pass Luhn's check, so the scrubber takes them for a card. */
const CARD_LIKE = '4111111111111111';

describe('the SDK’s notes and breadcrumbs of an event', () => {
  it('passes notes without a sampling context as they are', () => {
    const notes = { normalizedRequest: { url: '/orders/7' } };
    const out = scrubEvent({ message: 'm', sdkProcessingMetadata: notes } as Event);
    expect(out.message).toBe('m');
    expect(out.sdkProcessingMetadata).toEqual(notes);
  });

  it('routes a breadcrumb’s text URLs and leaves its other values to the scrubber', () => {
    const out = scrubEvent(
      {
        message: 'm',
        breadcrumbs: [{ category: 'fetch', data: { url: 42, to: '/orders/7', method: 'GET' } }],
      } as Event,
      { routeOf: () => '/orders/[id]' },
    );
    expect(out.message).toBe('m');
    expect(out.breadcrumbs).toEqual([
      { category: 'fetch', data: { url: 42, to: '/orders/[id]', method: 'GET' } },
    ]);
  });
});

describe('what an event keeps as the SDK wrote it', () => {
  it('its ids, times, type, platform and level, even when an id looks like a card number', () => {
    const event = {
      event_id: CARD_LIKE,
      timestamp: 1_732_650_000.5,
      start_timestamp: 1_732_649_999.5,
      type: 'transaction',
      platform: 'javascript',
      level: 'warning',
      contexts: { trace: { trace_id: CARD_LIKE, span_id: CARD_LIKE, parent_span_id: CARD_LIKE, op: 'x' } },
    } as Event;
    expect(scrubEvent(event)).toStrictEqual(event);
    expect(scrubEvent({ ...event, type: 'event', platform: 'node' } as unknown as Event)).toMatchObject({
      type: 'event',
      platform: 'node',
    });
    expect(scrubEvent({ ...event, type: undefined } as Event)).not.toHaveProperty('type', expect.anything());
  });

  it('scrubs the same fields like any other value when they are not of the SDK’s shape', () => {
    const event = {
      event_id: `id ${CARD_LIKE}`,
      timestamp: CARD_LIKE,
      start_timestamp: CARD_LIKE,
      type: `type ${CARD_LIKE}`,
      platform: `platform ${CARD_LIKE}`,
      level: `${CARD_LIKE} error`,
      contexts: { trace: { trace_id: `t ${CARD_LIKE}`, span_id: 7 } },
    } as unknown as Event;
    expect(scrubEvent(event)).toStrictEqual({
      event_id: 'id [Filtered]',
      timestamp: '[Filtered]',
      start_timestamp: '[Filtered]',
      type: 'type [Filtered]',
      platform: 'platform [Filtered]',
      level: '[Filtered] error',
      contexts: { trace: { trace_id: 't [Filtered]', span_id: 7 } },
    });
    expect(scrubEvent({ level: `error ${CARD_LIKE}` } as unknown as Event).level).toBe('error [Filtered]');
  });
});

describe('what of the request an event keeps', () => {
  it('the user agent alone of its headers, and no headers when there is none', () => {
    const withAgent = scrubEvent({
      request: { method: 'GET', headers: { Cookie: 'session=1', 'User-Agent': 'Firefox' } },
    } as Event);
    expect(withAgent.request).toStrictEqual({ method: 'GET', headers: { 'User-Agent': 'Firefox' } });
    const without = scrubEvent({ request: { method: 'GET', headers: { Cookie: 'session=1' } } } as Event);
    expect(without.request).toStrictEqual({ method: 'GET' });
  });
});

describe('the SDK’s own notes', () => {
  it('pass as they are unless they hold a sampling context, which is scrubbed', () => {
    const notes = { dynamicSamplingContext: null, other: { user: 'jane@example.com' } };
    expect(
      scrubEvent({ message: 'x', sdkProcessingMetadata: notes } as unknown as Event).sdkProcessingMetadata,
    ).toStrictEqual(notes);
    expect(
      scrubEvent({
        message: 'x',
        sdkProcessingMetadata: { dynamicSamplingContext: { release: 'jane@example.com', sampled: 'true' } },
      } as unknown as Event).sdkProcessingMetadata,
    ).toStrictEqual({ dynamicSamplingContext: { release: '[Filtered]', sampled: 'true' } });
  });

  it('a sampling context keeps ids, numbers and flags, and scrubs a value of another shape as user data', () => {
    expect(
      scrubSamplingContext({
        trace_id: CARD_LIKE,
        sample_rand: '0.4111111111111111',
        sampled: 'false',
        nested: { password: 'hunter2' },
      }),
    ).toStrictEqual({
      trace_id: CARD_LIKE,
      sample_rand: '0.4111111111111111',
      sampled: 'false',
      nested: { password: '[Filtered]' },
    });
  });
});

describe('a breadcrumb', () => {
  it('names the route of its url, from and to, and scrubs what else it holds', () => {
    const routeOf = (path: string) => (path.startsWith('/orders/') ? '/orders/[id]' : undefined);
    expect(
      scrubBreadcrumbOrDrop(
        {
          category: 'navigation',
          data: {
            from: '/orders/7',
            to: '/orders/8?token=abc',
            url: 'https://shop.example/orders/9',
            size: 5,
          },
        },
        { routeOf, origin: 'https://shop.example' },
      ),
    ).toStrictEqual({
      category: 'navigation',
      data: {
        from: '/orders/[id]',
        to: '/orders/[id]?token=[Filtered]',
        url: 'https://shop.example/orders/[id]',
        size: 5,
      },
    });
  });
});

describe('how deep a value is followed', () => {
  const nested = (depth: number, wrap: (inner: unknown) => unknown): unknown => {
    let value: unknown = 'leaf';
    for (let i = 0; i < depth; i += 1) value = wrap(value);
    return value;
  };
  const leafOf = (value: unknown): unknown => {
    let at = value;
    while (typeof at === 'object' && at !== null) at = Array.isArray(at) ? at[0] : (at as { a: unknown }).a;
    return at;
  };

  it(`${MAX_DEPTH} levels of objects or arrays, and one more is replaced whole`, () => {
    for (const wrap of [(inner: unknown) => ({ a: inner }), (inner: unknown) => [inner]]) {
      // The fields are level 0: their value's objects are levels 1 to MAX_DEPTH, then one more.
      expect(leafOf(scrubFields({ a: nested(MAX_DEPTH, wrap) }))).toBe('leaf');
      expect(leafOf(scrubFields({ a: nested(MAX_DEPTH + 1, wrap) }))).toBe('[Filtered]');
    }
  });

  it('keeps every key that scrubs to the same text, numbered', () => {
    expect(scrubFields({ 'a@example.com': 1, 'b@example.com': 2, 'c@example.com': 3 })).toStrictEqual({
      '[Filtered]': 1,
      '[Filtered] (2)': 2,
      '[Filtered] (3)': 3,
    });
  });

  it('follows an object under a secret name in user data instead of dropping it', () => {
    expect(scrubFields({ extra: { password: { hint: 'in the drawer', pin: 1234 } } })).toStrictEqual({
      extra: { password: { hint: 'in the drawer', pin: '[Filtered]' } },
    });
  });

  it('answers for fields it cannot read with a note, never a throw', () => {
    const hostile = {
      get x() {
        throw new Error('getter');
      },
    };
    expect(scrubFields(hostile)).toStrictEqual({ note: 'fields dropped by the scrubber' });
  });
});

describe('a parameter’s value', () => {
  it('is read with + as a space before it is checked, and given back encoded only when changed', () => {
    expect(scrubUrl('/s?q=write+to+jane%40example.com&page=2')).toBe('/s?q=write%20to%20[Filtered]&page=2');
    expect(scrubUrl('/s?q=plain+words')).toBe('/s?q=plain+words');
  });

  it('keeps its quotes in free text, around the marker', () => {
    expect(scrubText('{"password": "hunter2", "user": "x"}')).toBe('{"password": "[Filtered]", "user": "x"}');
    expect(scrubText("password='hunter2'")).toBe("password='[Filtered]'");
    expect(scrubText('password=hunter2 next')).toBe('password=[Filtered] next');
  });

  it('is followed through URLs nested in it, three deep', () => {
    const inner = 'https://c.example/?token=secret';
    const once = `https://b.example/?next=${encodeURIComponent(inner)}`;
    const twice = `https://a.example/?next=${encodeURIComponent(once)}`;
    expect(scrubUrl(twice)).not.toContain('secret');
  });

  it('is followed three values deep in free text, and a value deeper that holds a pair is filtered unread', () => {
    const e = encodeURIComponent;
    const inside = (name: string, text: string) => `${name}=${e(text)}`;
    // Three deep: the secret's own name is read and its value filtered.
    expect(scrubText(inside('b', inside('c', 'password=hunter2')))).toBe('b=c%3Dpassword%253D[Filtered]');
    // Four deep: the third value holds a pair the bound does not read, so it goes whole.
    expect(scrubText(inside('a', inside('b', inside('c', 'password=hunter2'))))).toBe(
      'a=b%3Dc%253D[Filtered]',
    );
    expect(scrubText(inside('a', inside('b', inside('c', 'plain=words'))))).toBe('a=b%3Dc%253D[Filtered]');
    expect(scrubText('a=b=c=d=e=f')).toBe('a=b%3Dc%253D[Filtered]');
    // A value that deep with no pair in it is kept.
    expect(scrubText('a=b=c=d')).toBe('a=b=c=d');
    expect(scrubText(inside('a', inside('b', inside('c', 'words'))))).toBe(
      inside('a', inside('b', inside('c', 'words'))),
    );
  });
});

describe('a URL’s fragment', () => {
  it('is read as parameters when it holds one, and as one text when not, so a secret with & in it goes whole', () => {
    expect(scrubUrl('/cb#page=2&access_token=t0k')).toBe('/cb#page=2&access_token=[Filtered]');
    expect(scrubUrl('/p#authorization: Bearer abc&def')).toBe('/p#authorization: [Filtered]');
    expect(scrubUrl('/p#top&bottom')).toBe('/p#top&bottom');
  });
});

describe('a span on its own', () => {
  const routeOf = (path: string) => (path.startsWith('/orders/') ? '/orders/[id]' : undefined);
  const options = { routeOf, origin: 'https://shop.example' };

  it('keeps a status code that a secret name (…code) would take, and only as a number', () => {
    const span = scrubSpan(
      {
        span_id: 'a',
        trace_id: 'b',
        start_timestamp: 1,
        data: {
          'http.response.status_code': 404,
          'auth.code': 1234,
          'url.full': 'https://shop.example/orders/7?token=x',
        },
      } as never,
      options,
    );
    expect(span.data).toStrictEqual({
      'http.response.status_code': 404,
      'auth.code': '[Filtered]',
      'url.full': 'https://shop.example/orders/[id]?token=[Filtered]',
    });
    expect(
      scrubSpan({ data: { 'http.response.status_code': '404 jane@example.com' } } as never).data,
    ).toStrictEqual({
      'http.response.status_code': '[Filtered]',
    });
  });

  it('follows an object under a secret name instead of dropping it, as user data', () => {
    expect(scrubSpan({ data: { secret: { hint: 'x', password: 'y' } } } as never).data).toStrictEqual({
      secret: { hint: 'x', password: '[Filtered]' },
    });
  });

  it('names its route in a description that is a path or an http URL, and leaves other text to the scrub', () => {
    expect(scrubSpan({ description: '/orders/7', data: {} } as never, options).description).toBe(
      '/orders/[id]',
    );
    expect(
      scrubSpan({ description: 'http://shop.example/orders/7', data: {} } as never, {
        ...options,
        origin: 'http://shop.example',
      }).description,
    ).toBe('http://shop.example/orders/[id]');
    expect(
      scrubSpan({ description: 'ftp://shop.example/orders/7', data: {} } as never, options).description,
    ).toBe('ftp://shop.example/orders/7');
    expect(scrubSpan({ description: 'click on /orders/7', data: {} } as never, options).description).toBe(
      'click on /orders/7',
    );
  });

  it('goes with its ids and times only when it cannot be read, each field as it can be', () => {
    const hostile = {
      span_id: 'a',
      trace_id: 'b',
      start_timestamp: 1,
      timestamp: 2,
      op: 'ui.interaction',
      status: 'ok',
      parent_span_id: { not: 'a string' },
      get data(): never {
        throw new Error('getter');
      },
    };
    expect(scrubSpan(hostile as never)).toStrictEqual({
      description: '[Filtered]',
      data: {},
      span_id: 'a',
      trace_id: 'b',
      start_timestamp: 1,
      timestamp: 2,
      op: 'ui.interaction',
      status: 'ok',
    });
  });
});

describe('a span’s description', () => {
  it('is routed when it is a URL or a request, and left as it is when it only holds one', () => {
    const routeOf = () => '/orders/[id]';
    const described = (description: string) =>
      scrubSpan({ description, span_id: 'a', trace_id: 'b', start_timestamp: 1, data: {} } as SpanJSON, {
        routeOf,
      }).description;
    expect(described('/orders/7')).toBe('/orders/[id]');
    expect(described('GET /orders/7')).toBe('GET /orders/[id]');
    expect(described('render list of /orders/7')).toBe('render list of /orders/7');
  });
});

describe('a span container, as the tunnel reads it', () => {
  it('reads a span that is text as none, and one without attributes as it is', () => {
    expect(scrubSpanItems({ items: ['abc', { name: 'x', attributes: null }] })).toStrictEqual({
      items: [{}, { name: 'x' }],
    });
  });

  it('skips what is not a span or an attribute, and types a number a secret name filtered as a string', () => {
    expect(
      scrubSpanItems({
        items: [
          null,
          7,
          {
            name: 'GET /orders/7',
            trace_id: 'jane@example.com',
            attributes: {
              'auth.code': { type: 'integer', value: 1234 },
              'http.response.status_code': { type: 'integer', value: 200 },
              broken: null,
              plain: 'not typed',
              note: { type: 'string', value: '[Filtered]' },
            },
          },
        ],
      }),
    ).toStrictEqual({
      items: [
        {},
        {},
        {
          name: 'GET /orders/7',
          trace_id: '[Filtered]',
          attributes: {
            'auth.code': { type: 'string', value: '[Filtered]' },
            'http.response.status_code': { type: 'integer', value: 200 },
            note: { type: 'string', value: '[Filtered]' },
          },
        },
      ],
    });
  });
});
