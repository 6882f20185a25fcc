/** @jest-environment node */
import type { Event } from '@sentry/core';
import {
  FILTERED,
  scrubBreadcrumbOrDrop,
  scrubEvent,
  scrubText,
  scrubUrl,
} from '../../../../lib/reporting/scrub';

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

describe('scrubBreadcrumbOrDrop', () => {
  it('drops console breadcrumbs, which can hold anything a developer logged', () => {
    expect(scrubBreadcrumbOrDrop({ category: 'console', message: 'user token abc' })).toBeNull();
  });

  it('scrubs navigation messages', () => {
    expect(scrubBreadcrumbOrDrop({ category: 'navigation', message: '/a?token=1' })?.message).toBe(
      `/a?token=${FILTERED}`,
    );
  });
});
