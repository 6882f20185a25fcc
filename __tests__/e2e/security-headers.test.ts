// Every kind of response carries the security headers and nothing that names the framework.
import { rawRequest } from '../support/http';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ distDir: PRODUCTION_DIST });
});

afterAll(async () => {
  await server?.stop();
});

/** A script the build serves (the 404 page ships none), as the build's manifest names it. */
async function staticScriptPath(): Promise<string> {
  const manifest = JSON.parse(readFileSync(path.join(ROOT, PRODUCTION_DIST, 'build-manifest.json'), 'utf8'));
  return `/_next/${manifest.pages['/_app'][0]}`;
}

/**
 * The header names the product's own `headers()` in next.config set, as the build's routes manifest
 * lists them (none in the shell alone): a product's header of the same name wins over the shell's
 * default (e2e/product-headers.test.ts checks it does), so the defaults checked here are the others.
 */
const PRODUCT_SETS = new Set(
  (
    JSON.parse(readFileSync(path.join(ROOT, PRODUCTION_DIST, 'routes-manifest.json'), 'utf8')) as {
      headers: { headers: { key: string }[] }[];
    }
  ).headers.flatMap((rule) => rule.headers.map(({ key }) => key.toLowerCase())),
);

/** The shell's default for `name` on this answer, checked unless the product's headers() set that name. */
function expectDefault(headers: Record<string, unknown>, name: string, check: (value: string) => void): void {
  if (!PRODUCT_SETS.has(name)) check(String(headers[name]));
}

/** What a page's set and the API's set both carry, and what no answer may carry. */
function expectSharedHeaders(headers: Record<string, unknown>): void {
  expect(headers['strict-transport-security']).toMatch(/max-age=\d{8,}/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['cross-origin-resource-policy']).toBe('same-origin');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-powered-by']).toBeUndefined();
  expect(headers['set-cookie']).toBeUndefined();
}

describe('security headers', () => {
  const kinds: [string, () => Promise<string>, string][] = [
    ['a missing page', async () => '/missing', 'GET'],
    ['a malformed URL', async () => '/%', 'GET'],
    ['a static script', staticScriptPath, 'GET'],
    ['a missing static file', async () => '/_next/static/chunks/nope.js', 'GET'],
  ];

  it.each(kinds)('are on %s', async (_name, pathFor, method) => {
    const res = await rawRequest(server.url, await pathFor(), { method });
    expectDefault(res.headers, 'content-security-policy', (csp) => {
      const scriptSrc = csp.split(';').find((d) => d.trim().startsWith('script-src')) ?? '';
      expect(scriptSrc.trim()).toBe("script-src 'self'");
      // Inline style attributes only (React's style={{…}}, next/image); no inline script, no eval.
      const inline = csp.split(';').filter((d) => d.includes("'unsafe-inline'"));
      expect(inline.map((d) => d.trim())).toEqual(["style-src-attr 'unsafe-inline'"]);
      expect(csp).not.toContain('unsafe-eval');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("connect-src 'self'");
    });
    expectDefault(res.headers, 'referrer-policy', (value) =>
      expect(value).toBe('strict-origin-when-cross-origin'),
    );
    expectDefault(res.headers, 'permissions-policy', (value) => expect(value).toContain('camera=()'));
    expectDefault(res.headers, 'cross-origin-opener-policy', (value) => expect(value).toBe('same-origin'));
    expectSharedHeaders(res.headers);
  });

  // OWASP's set for API answers (docs/security-headers.md): JSON loads nothing and is never a page.
  it.each([
    ['the health API', '/api/health', 'GET'],
    ['the health API (405)', '/api/health', 'POST'],
    ['an unknown API path', '/api/none', 'GET'],
  ])('are the API set on %s', async (_name, target, method) => {
    const res = await rawRequest(server.url, target, { method });
    expectDefault(res.headers, 'content-security-policy', (value) =>
      expect(value).toBe("default-src 'none'; frame-ancestors 'none'"),
    );
    // Every error answer is private as well (lib/http/private-errors.ts).
    expectDefault(res.headers, 'cache-control', (value) =>
      expect(value).toBe(res.status >= 400 ? 'private, no-store' : 'no-store'),
    );
    expectSharedHeaders(res.headers);
  });
});
