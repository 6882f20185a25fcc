// The shell answers some requests before Next. Each must end where bare `next start` on the same
// build would end it: the same status, through the same redirects. A product (support/product-build.ts)
// is built in each configuration a team may set (PARITY_PRODUCTS), served by both, and asked the same corpus of
// requests: every route and file under many spellings, and a seeded random one.
import http from 'node:http';
import { rmSync } from 'node:fs';
import {
  buildProduct,
  PARITY_PRODUCTS as CONFIGS,
  prebuiltProduct,
  PUBLIC_FILES,
  startBareNext,
} from '../support/product-build';
import { eachLimited } from '../support/each-limited';
import { seededRandom } from '../support/seeded-random';
import { startServer, type RunningServer } from '../support/server';

/** Every route, file and rule of the product, and paths none of them answer. */
const BASES = [
  '/',
  '/about',
  '/blog/hello',
  '/blog/gone',
  '/products/7',
  '/old',
  '/docs/a/b',
  '/docs/x',
  '/api/echo',
  '/api/items/7',
  '/api/upload',
  '/api/missing',
  '/api',
  '/missing-page',
  '/deep/missing/page',
  '/missing.txt',
  '/robots.txt',
  '/favicon.ico',
  ...PUBLIC_FILES.map((file) => `/${file}`),
  '/files',
  '/linked-folder',
  '/static/legacy.txt',
  '/static/missing.txt',
  '/api/health',
  '/api/health/live',
  '/old-blog/x',
  '/moved',
  '/mw-redirect',
  '/mw-rewrite',
  '/mw-gone',
  '/_next/image',
  '/_next/data/unknown/about.json',
  '/_next/static/missing.js',
  '/404',
  '/_error',
  '/index',
];

/** A path with each segment percent-encoded as a browser would (`a b` → `a%20b`). */
const encodeSegments = (p: string, encode: (segment: string) => string) =>
  p
    .split('/')
    .map((segment) => encode(segment))
    .join('/');
const everyByte = (segment: string) =>
  [...Buffer.from(segment)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** The spellings each path is asked under. */
function spellings(base: string): string[] {
  const normal = encodeSegments(base, encodeURIComponent);
  const lastSlash = normal.lastIndexOf('/');
  const parent = normal.slice(0, lastSlash) || '';
  const last = normal.slice(lastSlash + 1);
  const variants = [
    normal,
    encodeSegments(base, everyByte),
    encodeSegments(base, (segment) => encodeURIComponent(encodeURIComponent(segment))),
    normal.toLowerCase().replace(/%[0-9a-f]{2}/g, (escape) => escape.toLowerCase()),
    normal.toUpperCase(),
    `${normal}/`,
    `${normal}//`,
    `/${normal}`,
    normal.replace(/\//g, '//'),
    `${parent}/./${last}`,
    `${parent}/x/../${last}`,
    `${parent}/%2e/${last}`,
    `${parent}/x/%2E%2E/${last}`,
    `${normal}/.`,
    `${normal}/..`,
    `${normal};a=1`,
    `${parent};/${last}`,
    `${normal}?a=1`,
    `${normal}/?a=1`,
    `${normal}?`,
    normal.replace(/\/(?=[^/]*$)/, '%2F'),
    normal.replace(/\./g, '%2E'),
    `${normal}%20`,
    `${normal}~`,
    `${normal.toUpperCase()}/`,
    `${encodeSegments(base, everyByte)}/`,
  ];
  return [...new Set(variants.filter((variant) => variant.startsWith('/')))];
}

/** Paths made of the corpus's pieces at random, from a fixed seed. */
function randomPaths(count: number, seed: number): string[] {
  const random = seededRandom(seed).next;
  const pieces = [
    ...new Set(BASES.flatMap((base) => base.split('/')).filter(Boolean)),
    '.',
    '..',
    '%2e',
    '%2F',
    '%25',
    '%20',
    ';',
    '+',
    '~',
    '%C3%A9',
    'A',
    '',
  ];
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
  return Array.from({ length: count }, () => {
    const segments = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
      encodeURIComponent(pick(pieces)).replace(/%25(2e|2F|25|20|C3%A9)/gi, '%$1'),
    );
    return `/${segments.join('/')}${random() < 0.2 ? '/' : ''}${random() < 0.1 ? '?q=1' : ''}`;
  });
}

/** What a journey records for an answer of the health route, whatever its status. */
const HEALTH_ROUTE = 0;

interface Hop {
  status: number;
  location?: string;
}

/** Where a request ends: each answer's status, and each redirect's target, until one is not a redirect. */
async function journey(origin: string, agent: http.Agent, method: string, target: string): Promise<string> {
  const hops: Hop[] = [];
  let next = target;
  for (let hop = 0; hop < 6; hop += 1) {
    const answer = await ask(origin, agent, method, next);
    // The same place on either server: a Location is compared without the server's own origin.
    const location = answer.location?.replace(origin, '');
    hops.push({ status: answer.status, ...(location !== undefined ? { location } : {}) });
    if (answer.status < 300 || answer.status >= 400 || location === undefined || !location.startsWith('/'))
      break;
    next = location;
  }
  const status = (hop: Hop) => (hop.status === HEALTH_ROUTE ? 'the health route' : `${hop.status}`);
  return hops
    .map((hop) => (hop.location === undefined ? status(hop) : `${status(hop)} → ${hop.location}`))
    .join(', ');
}

function ask(origin: string, agent: http.Agent, method: string, target: string): Promise<Hop> {
  return new Promise((resolve) => {
    const req = http.request(
      `${origin}/`,
      {
        method,
        path: target,
        agent,
        timeout: 10_000,
        headers: { Accept: 'text/html', 'Accept-Language': 'fr', 'Accept-Encoding': 'gzip' },
      },
      (res) => {
        res.resume();
        // The health route answers as the process is: the shell's is ready, while bare `next start`
        // runs no lifecycle and its route says "not ready" (503). Where either ends there, that
        // place is what is compared (docs/not-found.md).
        const health = res.headers['content-type']?.startsWith('application/health+json');
        res.on('end', () =>
          resolve({
            status: health ? HEALTH_ROUTE : (res.statusCode ?? 0),
            ...(res.headers.location ? { location: res.headers.location } : {}),
          }),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', (error) => resolve({ status: -1, location: error.message }));
    req.end();
  });
}

describe.each(CONFIGS)('the shell and bare next start on one build: $name', (product) => {
  let dir = '';
  let shell: RunningServer;
  let bare: RunningServer;

  beforeAll(async () => {
    dir = prebuiltProduct(product.name) ?? buildProduct(product);
    [shell, bare] = await Promise.all([
      startServer({
        distDir: '.next',
        root: dir,
        ...(product.readyPath ? { readyPath: product.readyPath } : {}),
      }),
      // Any answer at all: the product's home page.
      startBareNext(dir, product.prefixes[0] || '/'),
    ]);
  }, 240_000);

  afterAll(async () => {
    await Promise.all([shell?.stop(), bare?.stop()]);
    // One built before the tests is the suite's, shared (e2e/request-bodies.test.ts serves the
    // default one too): the teardown removes it.
    if (dir && !prebuiltProduct(product.name)) rmSync(dir, { recursive: true, force: true });
  });

  test('every request of the corpus ends where it ends under next start', async () => {
    const targets = [
      ...new Set([
        ...product.prefixes.flatMap((prefix) =>
          BASES.flatMap((base) => spellings(base).map((p) => `${prefix}${p}`)),
        ),
        ...randomPaths(400, 50).flatMap((p) => product.prefixes.map((prefix) => `${prefix}${p}`)),
      ]),
    ];
    const requests = targets.flatMap((target) => [
      ['GET', target],
      ['HEAD', target],
    ]) as [string, string][];
    const agents = [
      new http.Agent({ keepAlive: true, maxSockets: 4 }),
      new http.Agent({ keepAlive: true, maxSockets: 4 }),
    ];
    const differences: string[] = [];
    await eachLimited(requests, 8, async ([method, target]) => {
      const [ours, next] = await Promise.all([
        journey(shell.url, agents[0]!, method, target),
        journey(bare.url, agents[1]!, method, target),
      ]);
      if (ours !== next) differences.push(`${method} ${target}: shell ${ours}; next start ${next}`);
    });
    for (const agent of agents) agent.destroy();
    console.log(
      `[parity] ${product.name}: ${requests.length} requests compared, ${differences.length} differ`,
    );
    expect(requests.length).toBeGreaterThanOrEqual(2000);
    expect(differences.sort().slice(0, 40)).toEqual([]);
  }, 300_000);

  test('the probes are answered where Next serves their route files', async () => {
    const probe = await fetch(`${shell.url}${product.readyPath ?? '/api/health/ready'}`, {
      redirect: 'manual',
    });
    expect([probe.status, probe.headers.get('content-type')]).toEqual([
      200,
      'application/health+json; charset=utf-8',
    ]);
  });

  test("a 404 Next decides is the shell's own screen, in the visitor's language, with no script", async () => {
    const prefix = product.prefixes[0];
    for (const target of [
      `${prefix}/missing%20page`,
      `${prefix}/deep/missing/page/`,
      `${prefix}/missing-page`,
    ]) {
      const res = await fetch(`${shell.url}${target}`, {
        headers: { 'Accept-Language': 'fr' },
        redirect: 'follow',
      });
      const body = await res.text();
      expect([target, res.status, res.headers.get('content-language')]).toEqual([target, 404, 'fr']);
      expect(body).not.toMatch(/<script/i);
    }
    const api = await fetch(`${shell.url}${prefix}/api/missing%2Fpath`);
    expect([api.status, api.headers.get('content-type')]).toEqual([404, 'application/problem+json']);
  });
});
