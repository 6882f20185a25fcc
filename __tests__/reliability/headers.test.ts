// Every kind of response carries the security headers; none sets a cookie; none names the
// framework or its version.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../support/paths';
import { reportingBuild } from '../support/reporting-build';
import type { RunningServer } from '../support/server';
import { buildRequest, type RawAnswer, sendRaw } from '../support/raw-http';
import { type ReportingStack, startReportingStack } from '../support/reporting-stack';
import { recordResult } from '../support/results';

const build = reportingBuild();
const NEXT_VERSION = JSON.parse(
  readFileSync(path.join(ROOT, 'node_modules/next/package.json'), 'utf8'),
).version;
let stack: ReportingStack;
let server: RunningServer;

beforeAll(async () => {
  stack = await startReportingStack();
  server = stack.server;
});

afterAll(async () => {
  await stack?.stop();
});

/** A static asset the page names (the 404 ships no script, but a stylesheet). */
function staticAsset(html: string): string {
  return html.match(/(?:src|href)="(\/_next\/static\/[^"]+\.(?:js|css))"/)?.[1] ?? '/_next/static/none.js';
}

const envelope = () => `{"event_id":"${'e'.repeat(32)}","dsn":"${build.dsn}"}\n{"type":"event"}\n{}\n`;

/**
 * Each kind of response the server gives, with how to provoke it. Those under /api get the API's
 * set (docs/security-headers.md); a request refused before its target is read gets a page's.
 */
const KINDS: [string, () => Promise<Buffer>, number][] = [
  ['a page answering 200', async () => buildRequest({ target: '/__fixtures__/render-error' }), 200],
  ['the 404 page', async () => buildRequest({ target: '/missing' }), 404],
  ['a malformed URL', async () => buildRequest({ target: '/%E0%A4%A' }), 404],
  ['a 4xx page', async () => buildRequest({ target: '/__fixtures__/bad-request' }), 400],
  ['a 500 page', async () => buildRequest({ target: '/__fixtures__/server-error' }), 500],
  ['health 200', async () => buildRequest({ target: '/api/health' }), 200],
  ['health HEAD', async () => buildRequest({ method: 'HEAD', target: '/api/health/live' }), 200],
  ['health OPTIONS 204', async () => buildRequest({ method: 'OPTIONS', target: '/api/health' }), 204],
  ['health 405', async () => buildRequest({ method: 'DELETE', target: '/api/health' }), 405],
  ['health 404', async () => buildRequest({ target: '/api/health/other' }), 404],
  ['an API route answering 500', async () => buildRequest({ target: '/api/__fixtures__/throws' }), 500],
  [
    'a static asset',
    async () =>
      buildRequest({
        target: staticAsset((await sendRaw(server.port, buildRequest({ target: '/missing' }))).body),
      }),
    200,
  ],
  ['a missing static file', async () => buildRequest({ target: '/_next/static/chunks/none.js' }), 404],
  ['a public file', async () => buildRequest({ target: '/robots.txt' }), 200],
  ['the favicon', async () => buildRequest({ target: '/favicon.ico' }), 200],
  [
    'the tunnel forwarding',
    async () => buildRequest({ method: 'POST', target: build.tunnelPath, body: envelope() }),
    200,
  ],
  ['the tunnel refusing a GET', async () => buildRequest({ target: build.tunnelPath }), 405],
  ['OPTIONS *', async () => buildRequest({ method: 'OPTIONS', target: '*' }), 204],
  ['an invalid request target', async () => buildRequest({ target: 'foo' }), 400],
  ['a request without Host', async () => buildRequest({ target: '/api/health', host: null }), 400],
  ['a parser error', async () => Buffer.from('NOT HTTP\r\n\r\n'), 400],
  [
    'headers too large',
    async () => buildRequest({ target: '/', headers: [['X-Big', 'x'.repeat(20_000)]] }),
    431,
  ],
  ['CONNECT', async () => buildRequest({ method: 'CONNECT', target: 'example.com:443' }), 405],
  [
    'a WebSocket upgrade',
    async () =>
      buildRequest({
        target: '/',
        headers: [
          ['Connection', 'Upgrade'],
          ['Upgrade', 'websocket'],
        ],
      }),
    400,
  ],
];

const API_KINDS = new Set([
  'health 200',
  'health HEAD',
  'health OPTIONS 204',
  'health 405',
  'health 404',
  'an API route answering 500',
  // Its target is /api/health: the API's set, which the pipeline chose by the target, stays on the
  // shell's plain answer too (lib/http/plain-response.ts replaces no security header set before it).
  'a request without Host',
]);

function problems(answer: RawAnswer, api: boolean): string[] {
  const one = (name: string) => answer.headers[name]?.join(', ') ?? '';
  const found: string[] = [];
  const csp = one('content-security-policy');
  if (api) {
    if (csp !== "default-src 'none'; frame-ancestors 'none'") found.push(`CSP: ${csp || 'missing'}`);
  } else if (
    !/script-src 'self'(;|$)/.test(csp) ||
    // Inline style attributes are allowed (docs/security-headers.md); nothing else inline, no eval.
    /unsafe-(inline|eval)/.test(csp.replace("style-src-attr 'unsafe-inline'", '')) ||
    !csp.includes("frame-ancestors 'none'")
  )
    found.push(`CSP: ${csp || 'missing'}`);
  if (!/max-age=\d+/.test(one('strict-transport-security'))) found.push('no HSTS');
  if (one('x-content-type-options') !== 'nosniff') found.push('no nosniff');
  if (!api && !one('referrer-policy')) found.push('no Referrer-Policy');
  if (!api && !one('permissions-policy')) found.push('no Permissions-Policy');
  if (!api && one('cross-origin-opener-policy') !== 'same-origin') found.push('no COOP');
  if (one('cross-origin-resource-policy') !== 'same-origin') found.push('no CORP');
  if (one('x-frame-options') !== 'DENY') found.push('no X-Frame-Options');
  if (answer.headers['set-cookie']) found.push('sets a cookie');
  if (answer.headers['x-powered-by']) found.push('X-Powered-By');
  for (const [name, values] of Object.entries(answer.headers)) {
    if (values.some((v) => /next\.?js/i.test(v) || v.includes(NEXT_VERSION)))
      found.push(`${name} names the framework`);
  }
  return found;
}

describe('headers on every kind of response', () => {
  it.each(KINDS)('%s', async (name, request, status) => {
    const answer = await sendRaw(server.port, await request());
    const found = problems(answer, API_KINDS.has(name));
    recordResult({
      scenario: `headers: ${name}`,
      requests: 1,
      failures: found.length + (answer.status === status ? 0 : 1),
      worstLatencyMs: answer.ms,
    });
    expect(answer.status).toBe(status);
    expect(found).toEqual([]);
  });
});
