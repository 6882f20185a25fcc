// Several hundred generated hostile requests, seeded and reproducible (RELIABILITY_SEED=n to vary).
// Each must get its documented 4xx (docs/reliability.md), never a 5xx, never a stack trace or a
// server path in the body, and the server must keep serving.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';
import { buildRequest, sendRaw } from '../support/raw-http';
import { recordResult } from '../support/results';
import { isRouteOfBuild } from '../support/route-files';
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
/**
 * Paths no page answers, so each case's answer is the shell's "Page not found": `/` and `/orders/7`
 * only while no page of the build (a product's) routes them.
 */
const notRouted = (target: string) => !isRouteOfBuild(PRODUCTION_DIST, target.split('?')[0]!);
const PAGES = ['/', '/missing', '/orders/7', '/_next/static/chunks/nope.js'].filter(notRouted);
const APIS = ['/api/health', '/api/health/live', '/api/health/ready'];
// The build under test, read before any case is made (the suite's global setup built it).
const BUILD_ID = readFileSync(path.join(ROOT, PRODUCTION_DIST, 'BUILD_ID'), 'utf8').trim();
const CHUNK = `/_next/static/chunks/${readdirSync(path.join(ROOT, PRODUCTION_DIST, 'static/chunks')).find((f) => f.startsWith('framework-') && f.endsWith('.js'))}`;
/** Headers Next reads internally (routing, data requests, RSC, middleware); from outside they must change nothing. */
const NEXT_INTERNAL_HEADERS: [string, string][] = [
  ['x-nextjs-data', '1'],
  ['x-matched-path', '/api/health'],
  ['x-invoke-path', '/api/health'],
  ['x-invoke-status', '500'],
  ['x-invoke-error', '{"message":"x"}'],
  ['x-invoke-query', '%ff'],
  ['x-middleware-invoke', '1'],
  ['x-middleware-subrequest', 'middleware:middleware:middleware:middleware:middleware'],
  ['x-middleware-prefetch', '1'],
  ['x-nextjs-rewrite', '/api/health'],
  ['x-now-route-matches', '1=2'],
  ['RSC', '1'],
  ['Next-Router-State-Tree', '%ff%00'],
  ['Next-Router-Prefetch', '1'],
  ['Next-Action', 'abc'],
  ['x-forwarded-host', 'evil.example'],
  ['x-forwarded-proto', 'gopher'],
];
/** Query strings that mean something to Next or to a naive parser. */
const HOSTILE_QUERIES = [
  '?__nextDataReq=1',
  '?_rsc=x',
  '?%ff=%ff',
  '?__proto__[x]=1',
  '?a=1&a=2&a=3',
  '?&&&==',
];

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
      '/favicon.ico/../../next.config.ts',
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
            : [404];
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
    // HTTP/1.1 needs a Host with a value (RFC 9112 §3.2); any value at all is then ignored.
    return {
      name: `Host: ${host === null ? '(none)' : host.slice(0, 20)}`,
      request: buildRequest({ target, host }),
      allowed: host === null || host === '' ? [400] : [ok],
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
              ? [308] // to the same-origin path /evil.example/x: every 3xx's Location is checked below
              : [404];
    return { name: `${method} ${target}`, request: buildRequest({ method, target }), allowed };
  },
  // Every endpoint family Next serves in production, each with input aimed at it.
  '/_next/static': () => {
    const form = random.pick(['method', 'range', 'conditional', 'query', 'missing', 'encoded']);
    switch (form) {
      case 'method': {
        // OPTIONS is Next's own answer: 400 with Allow: GET, HEAD.
        const method = random.pick(['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
        return {
          name: `${method} ${CHUNK}`,
          request: buildRequest({ method, target: CHUNK, body: method === 'OPTIONS' ? undefined : 'x' }),
          allowed: method === 'OPTIONS' ? [400] : [405],
        };
      }
      case 'range': {
        const range = random.pick(['bytes=99999999-', 'bytes=x-y', 'bytes=-0', 'bytes=5-1', 'chars=0-1']);
        const allowed = range === 'chars=0-1' ? [200] : [416];
        return {
          name: `Range: ${range}`,
          request: buildRequest({ target: CHUNK, headers: [['Range', range]] }),
          allowed,
        };
      }
      case 'conditional': {
        // Unparsable validators are ignored (200), except If-Match, which no ETag matches (412).
        const [name, value, status] = random.pick<[string, string, number]>([
          ['If-None-Match', 'garbage', 200],
          ['If-Modified-Since', 'not a date', 200],
          ['If-Range', '%ff', 200],
          ['If-Match', '*, *', 412],
          ['If-Match', '"nope"', 412],
        ]);
        return {
          name: `${name}: ${value}`,
          request: buildRequest({ target: CHUNK, headers: [[name, value]] }),
          allowed: [status],
        };
      }
      case 'query': {
        const query = random.pick(HOSTILE_QUERIES);
        return {
          name: `${CHUNK}${query}`,
          request: buildRequest({ target: `${CHUNK}${query}` }),
          allowed: [200],
        };
      }
      case 'missing': {
        const target = `/_next/static/${random.pick(['chunks', 'css', BUILD_ID, 'media'])}/${segment()}.js`;
        return { name: target, request: buildRequest({ target }), allowed: [404] };
      }
      default: {
        const target = `/_next/static/chunks/${random.pick(['%ff', '%00', '%2f%2f', '..%00', '%E0%A4%A'])}${segment()}.js`;
        return { name: target, request: buildRequest({ target }), allowed: [404] };
      }
    }
  },
  '/_next/data': () => {
    const target = random.pick([
      `/_next/data/${BUILD_ID}/${segment()}.json`,
      `/_next/data/${BUILD_ID}/index.json`,
      `/_next/data/${BUILD_ID}/404.json`,
      `/_next/data/${BUILD_ID}/_error.json`,
      `/_next/data/${BUILD_ID}/api/health.json`,
      `/_next/data/${BUILD_ID}/%ff.json`,
      `/_next/data/${BUILD_ID}/%2e%2e/%2e%2e/package.json`,
      `/_next/data/${segment()}/index.json`,
      `/_next/data/${BUILD_ID}`,
    ]);
    const headers = random.next() < 0.5 ? [random.pick(NEXT_INTERNAL_HEADERS)] : [];
    return {
      name: `${target} ${headers.map(([n]) => n).join('')}`,
      request: buildRequest({ target, headers }),
      allowed: [404],
    };
  },
  // Off (next.config.ts, images.unoptimized): whatever the query, a 404. Turned on, some of these
  // made Next's optimizer answer 500 (docs/images.md).
  '/_next/image': () => {
    const url = random.pick([
      '/favicon.ico',
      '/%25ff',
      '/%25E0%25A4%25A',
      '/%5C%5Cevil.example',
      '/_next/static/%25ff',
      'http://evil.example/a.png',
      '//evil.example/a.png',
      'http://169.254.169.254/latest/meta-data/',
      '/api/health',
      '/_next/image%3Furl%3D%2Ffavicon.ico',
      'data:image/png;base64,AAAA',
    ]);
    const w = random.pick(['64', '99999', '-1', 'abc']);
    const target = `/_next/image?url=${url}&w=${w}&q=${random.pick(['75', '0', '101'])}`;
    const method = random.pick(['GET', 'GET', 'HEAD', 'POST']);
    return {
      name: `${method} ${target}`,
      request: buildRequest({ method, target, headers: [['Accept', 'image/avif,image/webp,*/*']] }),
      allowed: [404],
    };
  },
  pages: () => {
    const page = random.pick(['/', '/missing', `/${segment()}`, `/${segment()}/${segment()}`]);
    // (A path a product's page answers is not this case's: the shell's 404 for it is.)
    const target = `${notRouted(page) ? page : '/missing'}${random.pick(['', ...HOSTILE_QUERIES])}`;
    const method = random.pick(['GET', 'GET', 'HEAD', 'POST', 'PUT', 'DELETE']);
    const headers = [random.pick(NEXT_INTERNAL_HEADERS)];
    return {
      name: `${method} ${target} ${headers[0]![0]}`,
      request: buildRequest({
        method,
        target,
        headers,
        body: ['POST', 'PUT'].includes(method) ? '{"a":1}' : undefined,
      }),
      allowed: [404],
    };
  },
  'the 404 and error pages': () => {
    const target = random.pick([
      '/404',
      '/404.html',
      '/500',
      '/_error',
      '/_app',
      '/_document',
      '/_not-found',
      '/404/404',
    ]);
    const headers = random.next() < 0.5 ? [random.pick(NEXT_INTERNAL_HEADERS)] : [];
    return {
      name: `${target} ${headers.map(([n]) => n).join('')}`,
      request: buildRequest({ target, headers }),
      allowed: [404],
    };
  },
  API: () => {
    const form = random.pick(['unknown', 'method', 'headers', 'query', 'slash']);
    switch (form) {
      case 'unknown': {
        const target = random.pick([
          '/api',
          '/api/nope',
          '/api/health/%ff',
          '/api/health/live/extra',
          '/api/health.json',
          '/api/Health',
          '/API/health',
          `/api/${segment()}`,
        ]);
        return { name: target, request: buildRequest({ target }), allowed: [404] };
      }
      case 'method': {
        const method = random.pick(['POST', 'PUT', 'DELETE', 'PATCH']);
        const body = random.pick([
          '{"status":"fail"}',
          '{"__proto__":{"x":1}}',
          'x'.repeat(random.int(1, 100_000)),
        ]);
        return {
          name: `${method} with ${body.length}-byte body`,
          request: buildRequest({
            method,
            target: random.pick(APIS),
            headers: [['Content-Type', 'application/json']],
            body,
          }),
          allowed: [405],
        };
      }
      case 'headers': {
        const header = random.pick(NEXT_INTERNAL_HEADERS);
        return {
          name: `${header[0]}: ${header[1]}`,
          request: buildRequest({ target: random.pick(APIS), headers: [header] }),
          allowed: [200],
        };
      }
      case 'query': {
        const target = `${random.pick(APIS)}${random.pick(HOSTILE_QUERIES)}`;
        return { name: target, request: buildRequest({ target }), allowed: [200] };
      }
      default: {
        // Next drops a trailing slash with a 308 to the same path.
        const target = `${random.pick(APIS)}/`;
        return { name: target, request: buildRequest({ target }), allowed: [308] };
      }
    }
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
      // A redirect may only lead to a path on this origin: never `//host`, `/\\host` or a URL.
      const location = answer.headers.location?.[0];
      if (answer.status >= 300 && answer.status < 400 && !(location && /^\/(?![/\\])/.test(location))) {
        failures.push(`${testCase.name}: ${answer.status} to ${String(location)}`);
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
