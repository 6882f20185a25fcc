import { ServerResponse, IncomingMessage } from 'node:http';
import {
  apiSecurityHeaders,
  contentSecurityPolicy,
  REPORT_ENDPOINT,
  securityHeaders,
  securityHeaderSetter,
  setDefaults,
  setMissingDefaults,
} from '@lib/http/security-headers';

/** One directive's values, by name ('' when the policy has none of that name). */
function directive(policy: string, name: string): string {
  const found = policy.split('; ').find((part) => part === name || part.startsWith(`${name} `));
  return found === undefined ? '' : found.slice(name.length).trim();
}

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

  it('allows scripts, style sheets and connections from this origin only in production', () => {
    expect(contentSecurityPolicy()).toBe(
      "default-src 'self'; script-src 'self'; style-src 'self'; style-src-elem 'self'; " +
        "style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self'; " +
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; " +
        "manifest-src 'self'; worker-src 'self'",
    );
  });

  // React's style={{…}} and next/image's own style are attributes: allowed, as under `next dev`;
  // <style> elements and every script stay this origin's only.
  it('allows inline style attributes in production, never an inline style element or script', () => {
    const policy = contentSecurityPolicy();
    expect(directive(policy, 'style-src-attr')).toBe("'unsafe-inline'");
    expect(directive(policy, 'style-src-elem')).toBe("'self'");
    expect(directive(policy, 'style-src')).toBe("'self'");
    expect(directive(policy, 'script-src')).toBe("'self'");
    expect(policy.match(/unsafe-inline/g)).toHaveLength(1);
    expect(policy).not.toMatch(/unsafe-eval|unsafe-hashes|script-src-attr|script-src-elem|ws:/);
  });

  it("allows eval, inline styles and the dev server's WebSocket only in development", () => {
    const dev = contentSecurityPolicy({ dev: true });
    expect(dev).toContain("script-src 'self' 'unsafe-eval';");
    expect(dev).toContain("style-src 'self' 'unsafe-inline';");
    expect(dev).toContain("connect-src 'self' ws:;");
    // A style-src-elem would govern the dev overlay's <style> elements in style-src's place.
    expect(dev).not.toMatch(/style-src-elem|style-src-attr/);
  });

  it('reports violations to the tunnel, by report-uri and report-to, only when it has a path', () => {
    const policy = contentSecurityPolicy({ reportPath: '/k3x9q2a' });
    expect(directive(policy, 'report-uri')).toBe('/k3x9q2a');
    expect(directive(policy, 'report-to')).toBe(REPORT_ENDPOINT);
    expect(policy.endsWith(`report-uri /k3x9q2a; report-to ${REPORT_ENDPOINT}`)).toBe(true);
    expect(securityHeaders({ reportPath: '/k3x9q2a' })['Reporting-Endpoints']).toBe(
      `${REPORT_ENDPOINT}="/k3x9q2a"`,
    );
    for (const reportPath of [null, undefined, '']) {
      expect(contentSecurityPolicy({ reportPath })).not.toMatch(/report/);
      expect(securityHeaders({ reportPath })).not.toHaveProperty('Reporting-Endpoints');
    }
    // An API answer loads nothing, so reports nothing.
    const set: Record<string, string> = {};
    const res = { setHeader: (name: string, value: string) => (set[name] = value) };
    securityHeaderSetter({ reportPath: '/k3x9q2a' })(res as unknown as ServerResponse, '/api/health');
    expect(set).toEqual(apiSecurityHeaders());
  });

  it('sets defaults over what is set, or only where nothing of the name is set', () => {
    const res = new ServerResponse(new IncomingMessage(null as never));
    res.setHeader('x-frame-options', 'SAMEORIGIN');
    setMissingDefaults(res, { 'X-Frame-Options': 'DENY', 'X-Content-Type-Options': 'nosniff' });
    expect(res.getHeader('x-frame-options')).toBe('SAMEORIGIN');
    expect(res.getHeader('x-content-type-options')).toBe('nosniff');
    setDefaults(res, { 'X-Frame-Options': 'DENY' });
    expect(res.getHeader('x-frame-options')).toBe('DENY');
  });

  it('names a script nonce in script-src only when given one, in development as in production', () => {
    expect(contentSecurityPolicy({ dev: true, scriptNonce: 'bm9uY2U=' })).toBe(
      contentSecurityPolicy({ dev: true }).replace(
        "script-src 'self' 'unsafe-eval';",
        "script-src 'self' 'unsafe-eval' 'nonce-bm9uY2U=';",
      ),
    );
    expect(contentSecurityPolicy({ scriptNonce: 'bm9uY2U=' })).toContain(
      "script-src 'self' 'nonce-bm9uY2U=';",
    );
    expect(contentSecurityPolicy({ dev: true })).not.toContain('nonce');
    expect(contentSecurityPolicy({ dev: true, scriptNonce: '' })).not.toContain('nonce');
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
