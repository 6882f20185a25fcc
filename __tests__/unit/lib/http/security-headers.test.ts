import type { ServerResponse } from 'node:http';
import {
  apiSecurityHeaders,
  contentSecurityPolicy,
  securityHeaders,
  securityHeaderSetter,
} from '../../../../lib/http/security-headers';

describe('security headers', () => {
  it('sends the full list that docs/operations.md names, with these values', () => {
    expect(securityHeaders()).toEqual({
      'Content-Security-Policy': contentSecurityPolicy(),
      'Strict-Transport-Security': 'max-age=63072000; includeSubDomains',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'strict-origin-when-cross-origin',
      'Permissions-Policy':
        'accelerometer=(), camera=(), geolocation=(), gyroscope=(), magnetometer=(), microphone=(), payment=(), usb=()',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    });
  });

  it('allows scripts, styles and connections from this origin only in production', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; " +
        "manifest-src 'self'; worker-src 'self'",
    );
  });

  it("allows eval, inline styles and the dev server's WebSocket only in development", () => {
    const dev = contentSecurityPolicy({ dev: true });
    expect(dev).toContain("script-src 'self' 'unsafe-eval';");
    expect(dev).toContain("style-src 'self' 'unsafe-inline';");
    expect(dev).toContain("connect-src 'self' ws:;");
    expect(contentSecurityPolicy()).not.toMatch(/unsafe|ws:/);
  });

  it("gives API answers OWASP's set for APIs, with a CSP under which nothing loads", () => {
    expect(apiSecurityHeaders()).toEqual({
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      'Strict-Transport-Security': securityHeaders()['Strict-Transport-Security'],
      'X-Content-Type-Options': 'nosniff',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'X-Frame-Options': 'DENY',
    });
  });

  it.each([
    ['/missing', securityHeaders()],
    ['/apiary', securityHeaders()],
    ['/x/api/health', securityHeaders()],
    ['/_next/static/chunks/main.js', securityHeaders()],
    ['/api', apiSecurityHeaders()],
    ['/api/health', apiSecurityHeaders()],
    ['/api/health/ready?probe=1', apiSecurityHeaders()],
  ])('sets the whole set for %s on a response, and nothing else', (url, expected) => {
    const set: Record<string, string> = {};
    const res = { setHeader: (name: string, value: string) => (set[name] = value) };
    securityHeaderSetter()(res as unknown as ServerResponse, url);
    expect(set).toEqual(expected);
  });
});
