// Whose page a request says it comes from: the tunnel's rule (another site refused, a client with
// neither header let through) and the beacons' stricter one (only this site's page proven).
import { crossSiteReason, sameOriginReason } from '@lib/http/cross-site';

describe('an Origin against the Host', () => {
  it.each([
    ['http://example.com', 'example.com'],
    ['http://example.com', 'example.com:80'],
    ['https://example.com', 'example.com:443'],
    ['http://example.com:80', 'example.com'],
    ['http://example.com:8080', 'example.com:8080'],
    ['https://Example.COM', 'example.com'],
    ['https://example.com', 'EXAMPLE.com'],
    ['http://127.0.0.1:3000', '127.0.0.1:3000'],
    ['http://[::1]:3000', '[::1]:3000'],
  ])('is the same origin: %s from %s', (origin, host) => {
    expect(crossSiteReason({ origin, host })).toBe('');
    expect(sameOriginReason({ origin, host })).toBe('');
  });

  it.each([
    ['http://example.com:8080', 'example.com'],
    ['http://example.com', 'example.com:8080'],
    ['https://example.com', 'example.com:80'],
    ['http://example.com', 'example.com:443'],
    ['https://elsewhere.example', 'example.com'],
    ['https://example.com.elsewhere.example', 'example.com'],
    ['http://127.0.0.1:3001', '127.0.0.1:3000'],
    ['ftp://example.com', 'example.com'],
    ['https://example.com', undefined],
    ['https://example.com', ''],
    ['https://example.com', 'example.com/@elsewhere.example'],
    // Hosts no URL can have: never this site.
    ['http://example.com', 'exa mple.com'],
    ['http://example.com', 'example.com:99999'],
  ])('is another origin: %s from %p', (origin, host) => {
    expect(crossSiteReason({ origin, host })).toBe('Origin is another site');
    expect(sameOriginReason({ origin, host })).toBe('cross_site');
  });

  it.each(['null', 'not a url <script>', ''])('is no origin at all when it is %p', (origin) => {
    expect(crossSiteReason({ origin, host: 'example.com' })).toBe('Origin is not a URL');
    expect(sameOriginReason({ origin, host: 'example.com' })).toBe('cross_site');
  });
});

describe('Sec-Fetch-Site', () => {
  it('decides alone: same-origin passes whatever the Origin, anything else is refused', () => {
    const elsewhere = { origin: 'https://elsewhere.example', host: 'example.com' };
    expect(crossSiteReason({ 'sec-fetch-site': 'same-origin', ...elsewhere })).toBe('');
    expect(sameOriginReason({ 'sec-fetch-site': 'same-origin', ...elsewhere })).toBe('');
    for (const site of ['cross-site', 'same-site', 'none', 'SAME-ORIGIN', 'same-origin, same-origin']) {
      const headers = { 'sec-fetch-site': site, origin: 'https://example.com', host: 'example.com' };
      expect(crossSiteReason(headers)).toBe('Sec-Fetch-Site is not same-origin');
      expect(sameOriginReason(headers)).toBe('cross_site');
    }
  });
});

describe('a request with neither Sec-Fetch-Site nor Origin (a client that is no browser)', () => {
  it('is not from another site, for the tunnel', () => {
    expect(crossSiteReason({ host: 'example.com' })).toBe('');
  });

  it('is not proven to be from this site, for a count', () => {
    expect(sameOriginReason({ host: 'example.com' })).toBe('no_origin');
    expect(sameOriginReason({})).toBe('no_origin');
  });
});
