import type { IncomingMessage, ServerResponse } from 'node:http';
import { giveDevelopmentNonce } from '@lib/http/development-nonce';
import { contentSecurityPolicy, type HeaderOptions } from '@lib/http/security-headers';

/** A request and a response as far as the nonce touches them, each with a policy already set. */
function answer(url: string, options?: HeaderOptions) {
  const set: Record<string, string> = { 'Content-Security-Policy': 'as set before' };
  const req = { headers: { host: 'x' } as Record<string, string> };
  const res = { setHeader: (name: string, value: string) => (set[name] = value) };
  giveDevelopmentNonce(req as unknown as IncomingMessage, res as unknown as ServerResponse, url, options);
  return { sent: set, seenByNext: req.headers };
}

const nonceOf = (policy: string | undefined) => policy?.match(/'nonce-([^']+)'/)?.[1];

describe('a development page answer’s script nonce', () => {
  it('is named in the answer’s policy, which is development’s with the nonce in script-src', () => {
    const { sent } = answer('/orders/3');
    const nonce = nonceOf(sent['Content-Security-Policy']);
    expect(sent['Content-Security-Policy']).toBe(contentSecurityPolicy({ dev: true, scriptNonce: nonce }));
    expect(sent['Content-Security-Policy']).toContain(`script-src 'self' 'unsafe-eval' 'nonce-${nonce}';`);
  });

  it('reaches Next in the request’s policy, the same as the answer’s, for Next to stamp its scripts', () => {
    const { sent, seenByNext } = answer('/orders/3');
    expect(seenByNext['content-security-policy']).toBe(sent['Content-Security-Policy']);
    expect(seenByNext.host).toBe('x');
  });

  it('keeps the rest of the policy the pipeline’s options make: its reports to the tunnel', () => {
    const { sent } = answer('/orders/3', { dev: true, reportPath: '/t3st' });
    const nonce = nonceOf(sent['Content-Security-Policy']);
    expect(sent['Content-Security-Policy']).toBe(
      contentSecurityPolicy({ dev: true, reportPath: '/t3st', scriptNonce: nonce }),
    );
    expect(sent['Content-Security-Policy']).toMatch(/; report-uri \/t3st; report-to csp$/);
  });

  it('is 128 random bits in base64, new for every answer', () => {
    const nonces = new Set(
      Array.from({ length: 20 }, () => nonceOf(answer('/').sent['Content-Security-Policy'])),
    );
    expect(nonces.size).toBe(20);
    for (const nonce of nonces) expect(Buffer.from(nonce as string, 'base64')).toHaveLength(16);
  });

  it.each(['/api', '/api/health', '/api/orders?id=3'])(
    'is not given to %s, which keeps its own policy, under which nothing runs',
    (url) => {
      const { sent, seenByNext } = answer(url);
      expect(sent['Content-Security-Policy']).toBe('as set before');
      expect(seenByNext['content-security-policy']).toBeUndefined();
    },
  );
});
