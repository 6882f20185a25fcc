// Several hundred generated hostile requests, seeded and reproducible (RELIABILITY_SEED=n to vary).
// Each must get its documented 4xx (README, "Reliability"), never a 5xx, never a stack trace or a
// server path in the body, and the server must keep serving.
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';
import { buildRequest, sendRaw } from '../support/raw-http';
import { recordResult } from '../support/results';
import { seededRandom } from '../support/seeded-random';

const SEED = Number(process.env.RELIABILITY_SEED) || 20261122;
const CASES_PER_CATEGORY = 40;

interface Case {
  category: string;
  name: string;
  request: Buffer;
  /** The documented answers. */
  allowed: number[];
}

const random = seededRandom(SEED);
const PAGES = ['/', '/missing', '/orders/7', '/_next/static/chunks/nope.js'];
const APIS = ['/api/health', '/api/health/live', '/api/health/ready'];

function segment(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789-._~';
  return Array.from({ length: random.int(1, 12) }, () => random.pick([...alphabet])).join('');
}

const generators: Record<string, () => Omit<Case, 'category'>> = {
  'malformed percent-encoding': () => {
    const bad = random.pick([
      '%',
      '%Z',
      '%zz',
      '%E0%A4%A',
      '%c0%af',
      '%%',
      '%0',
      '%u0041',
      '%F0%9F%98',
      '%ED%A0%80',
    ]);
    const target = `/${segment()}${bad}${random.next() < 0.5 ? `/${segment()}` : ''}`;
    return { name: target, request: buildRequest({ target }), allowed: [400, 404] };
  },
  'overlong path': () => {
    const length = random.int(2_000, 40_000);
    const target = `/${'a'.repeat(length)}`;
    // Up to Node's 16 KiB header limit a long path is just a missing page; beyond it, 431.
    return { name: `/a×${length}`, request: buildRequest({ target }), allowed: [404, 414, 431] };
  },
  'overlong query string': () => {
    const length = random.int(2_000, 40_000);
    const base = random.pick([...APIS, '/missing']);
    const target = `${base}?q=${'b'.repeat(length)}`;
    const ok = base.startsWith('/api/') ? 200 : 404;
    return { name: `${base}?q=b×${length}`, request: buildRequest({ target }), allowed: [ok, 414, 431] };
  },
  'NUL bytes': () => {
    const form = random.pick(['raw', 'encoded', 'query']);
    const target =
      form === 'raw'
        ? `/${segment()}\x00${segment()}`
        : form === 'encoded'
          ? `/${segment()}%00${segment()}`
          : `/api/health?x=%00`;
    return {
      name: `${form} NUL`,
      request: buildRequest({ target }),
      allowed: form === 'query' ? [200] : [400, 404],
    };
  },
  'invalid UTF-8': () => {
    const bytes = random.pick(['\xff\xfe', '\xc3\x28', '\xa0\xa1', '\xe2\x28\xa1', '\xf0\x28\x8c\xbc']);
    const encoded = random.next() < 0.5;
    const target = `/${segment()}${encoded ? [...bytes].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('') : bytes}`;
    return {
      name: `${encoded ? 'encoded' : 'raw'} invalid UTF-8`,
      request: buildRequest({ target }),
      allowed: [400, 404],
    };
  },
  'path traversal': () => {
    const target = random.pick([
      '/_next/static/../../package.json',
      '/_next/static/%2e%2e/%2e%2e/package.json',
      '/_next/static/..%2f..%2fpackage.json',
      '/_next/static/%252e%252e/%252e%252e/package.json',
      '/_next/static/chunks/..%5c..%5c..%5cpackage.json',
      '/%2e%2e/%2e%2e/%2e%2e/etc/passwd',
      '/public/../package.json',
      '/..;/package.json',
      '/_next/../.env',
      '/favicon.ico/../../next.config.js',
      '/_next/static/%c0%ae%c0%ae/package.json',
    ]);
    return { name: target, request: buildRequest({ target }), allowed: [400, 404] };
  },
  'huge and repeated headers': () => {
    if (random.next() < 0.5) {
      const size = random.int(17_000, 60_000);
      return {
        name: `one ${size}-byte header`,
        request: buildRequest({ target: random.pick(APIS), headers: [['X-Big', 'c'.repeat(size)]] }),
        allowed: [431],
      };
    }
    const count = random.int(50, 400);
    const headers: [string, string][] = Array.from({ length: count }, () => ['X-Repeat', segment()]);
    // 400 × ~20 bytes can cross the 16 KiB limit too.
    return {
      name: `${count} repeated headers`,
      request: buildRequest({ target: '/api/health', headers }),
      allowed: [200, 431],
    };
  },
  'unusual methods': () => {
    const method = random.pick([
      'TRACE',
      'PROPFIND',
      'CONNECT',
      'MKCOL',
      'LOCK',
      'PURGE',
      'SEARCH',
      'BREW',
      'get',
    ]);
    const target = method === 'CONNECT' ? 'example.com:443' : random.pick([...PAGES, ...APIS]);
    const allowed =
      method === 'CONNECT'
        ? [405]
        : ['BREW', 'get'].includes(method)
          ? [400] // not an HTTP method Node's parser knows
          : target.startsWith('/api/')
            ? [405]
            : [404, 405];
    return { name: `${method} ${target}`, request: buildRequest({ method, target }), allowed };
  },
  'odd Host headers': () => {
    const host = random.pick<string | null>([
      null,
      '',
      'evil.example',
      'a b c',
      '[::1]:3000',
      'localhost:99999',
      'x'.repeat(300),
      'xn--nxasmq6b.example',
      '127.0.0.1, evil.example',
      '%00',
    ]);
    const target = random.pick([...APIS, '/missing']);
    const ok = target.startsWith('/api/') ? 200 : 404;
    return {
      name: `Host: ${host === null ? '(none)' : host.slice(0, 20)}`,
      request: buildRequest({ target, host }),
      allowed: [ok, 400],
    };
  },
  'bodies on GET': () => {
    const target = random.pick([...APIS, '/missing']);
    const body = random.pick(['hello', '{"a":1}', 'x'.repeat(random.int(1, 50_000))]);
    const ok = target.startsWith('/api/') ? 200 : 404;
    return {
      name: `GET ${target} with ${body.length}-byte body`,
      request: buildRequest({ target, body }),
      allowed: [ok],
    };
  },
  'odd request targets': () => {
    const target = random.pick([
      '*',
      'foo',
      'http://evil.example/',
      'https://evil.example/api/health',
      '//evil.example/x',
    ]);
    const method = target === '*' ? 'OPTIONS' : 'GET';
    const allowed =
      target === '*'
        ? [204]
        : target === 'foo'
          ? [400]
          : target.endsWith('/api/health')
            ? [200]
            : target === '//evil.example/x'
              ? [308, 404]
              : [404];
    return { name: `${method} ${target}`, request: buildRequest({ method, target }), allowed };
  },
};

const cases: Case[] = Object.entries(generators).flatMap(([category, generate]) =>
  Array.from({ length: CASES_PER_CATEGORY }, () => ({ category, ...generate() })),
);

/** What a body must never show: a stack trace, a path on the server, a file's content. */
const LEAKS = [
  /\n\s+at \S+ \(/,
  /node_modules/,
  new RegExp(ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')),
  /root:x:0:0/,
  /"private": ?true/,
  /SENTRY_DSN=/,
];

let server: RunningServer;

beforeAll(async () => {
  server = await startServer({ distDir: PRODUCTION_DIST });
});

afterAll(async () => {
  await server?.stop();
});

describe(`hostile input (seed ${SEED}, ${cases.length} cases)`, () => {
  it.each(Object.keys(generators))('%s: documented 4xx, no leak, server keeps serving', async (category) => {
    const mine = cases.filter((c) => c.category === category);
    const failures: string[] = [];
    let worst = 0;
    for (const testCase of mine) {
      const answer = await sendRaw(server.port, testCase.request);
      worst = Math.max(worst, answer.ms);
      if (!testCase.allowed.includes(answer.status)) {
        failures.push(`${testCase.name}: ${answer.status} (documented: ${testCase.allowed.join(' or ')})`);
      }
      const leak = LEAKS.find((pattern) => pattern.test(answer.body));
      if (leak) failures.push(`${testCase.name}: body matches ${leak}`);
    }
    const live = await sendRaw(server.port, buildRequest({ target: '/api/health/live' }));
    recordResult({
      scenario: `bad input: ${category}`,
      requests: mine.length,
      failures: failures.length,
      worstLatencyMs: worst,
    });
    expect(failures).toEqual([]);
    expect(live.status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });

  it('logged no unhandled error while answering them', () => {
    expect(server.output()).not.toMatch(/unhandled|uncaught|ERR_INVALID_URL/i);
  });
});
