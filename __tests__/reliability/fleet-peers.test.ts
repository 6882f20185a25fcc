// What the fleet (lib/fleet/) lets a stranger or a bad peer cost a production server: a stranger's
// made-up chunk names, names built to reach another path, host or scheme, and a peer that is slow,
// dead or lying. The peer is a stand-in in this process that says it serves another build, so every
// made-up name is one the server would ask it for. Costs in time are curves in `npm run
// bench:strangers`; here, what can be counted: answers, what reached the peer, and the live heap.
import { rmSync } from 'node:fs';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IDENTITY_PATH } from '@lib/fleet/paths';
import { MAX_IN_FLIGHT_PER_PEER, MISSES_KEPT } from '@lib/fleet/stage';
import { FIXTURE_DIST } from '../support/paths';
import { buildRequest, sendRaw } from '../support/raw-http';
import { probeReadiness } from '../support/readiness-probe';
import { readMemory } from '../support/memory';
import { recordResult } from '../support/results';
import { seededRandom } from '../support/seeded-random';
import { type RunningServer, startServer } from '../support/server';

const FETCH_TIMEOUT_MS = 500;
/** More distinct names than the server remembers misses of: the memory bound must hold past it. */
const STRANGER_NAMES = MISSES_KEPT + 1000;
const MAX_HEAP_GROWTH_MIB = 8;
const MIB = 1024 * 1024;
const MEMORY_FILE = path.join(tmpdir(), `app-shell-fleet-memory-${process.pid}.json`);

type Behaviour = (req: IncomingMessage, res: ServerResponse) => void;
const honest404: Behaviour = (_, res) =>
  res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such file');

let server: RunningServer;
let peer: Server;
/** What the stand-in peer does with a file request; changed by each scenario. */
let behaviour: Behaviour = honest404;
/** Every path the peer was asked for other than its identity. */
let asked: string[] = [];
const random = seededRandom(26);
const hex = (length: number) =>
  Array.from({ length }, () => Math.floor(random.next() * 16).toString(16)).join('');

async function get(target: string, timeoutMs = 10_000) {
  return sendRaw(server.port, buildRequest({ target }), timeoutMs);
}

/** `targets` asked with `concurrency` connections at once; the statuses, in order. */
async function getAll(targets: string[], concurrency = 8): Promise<number[]> {
  const statuses: number[] = new Array<number>(targets.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < targets.length) {
        const i = next++;
        statuses[i] = (await get(targets[i]!)).status;
      }
    }),
  );
  return statuses;
}

/** The server's memory after a full GC (support/memory-probe.cjs). */
const memory = () => readMemory(server.child, MEMORY_FILE);

/** Until the server has forgiven a failed peer (lib/fleet/directory.ts: 5 s). */
const afterBackoff = () => new Promise((resolve) => setTimeout(resolve, 5200));

beforeAll(async () => {
  peer = http.createServer((req, res) => {
    if (req.url === IDENTITY_PATH) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(JSON.stringify({ build: 'anotherBuild', instance: 'standInPeer' }));
    }
    asked.push(req.url ?? '');
    behaviour(req, res);
  });
  await new Promise<void>((resolve) => peer.listen(0, '127.0.0.1', resolve));
  rmSync(MEMORY_FILE, { force: true });
  server = await startServer({
    distDir: FIXTURE_DIST,
    nodeOptions: `--require ${path.join(__dirname, '../support/memory-probe.cjs')}`,
    env: {
      APP_SHELL_TEST_MEMORY_FILE: MEMORY_FILE,
      FLEET_PEERS: `http://127.0.0.1:${(peer.address() as AddressInfo).port}`,
      FLEET_FETCH_TIMEOUT_MS: String(FETCH_TIMEOUT_MS),
    },
  });
});

afterAll(async () => {
  await server?.stop();
  peer?.closeAllConnections();
  await new Promise((resolve) => peer?.close(resolve));
  rmSync(MEMORY_FILE, { force: true });
});

beforeEach(() => {
  behaviour = honest404;
  asked = [];
});

describe('a stranger asking for chunk names no build has', () => {
  it(`gets a 404 for each of 2 × ${STRANGER_NAMES}, costs the peer one request per name at most, and leaves the heap flat`, async () => {
    const warmUp = Array.from({ length: 200 }, () => `/_next/static/chunks/${hex(16)}.js`);
    expect(new Set(await getAll(warmUp))).toEqual(new Set([404]));
    const before = await memory();

    const names = Array.from({ length: STRANGER_NAMES }, () => `/_next/static/chunks/${hex(16)}.js`);
    asked = [];
    const probe = probeReadiness(server.port);
    const statuses = await getAll(names);
    const middle = await memory();
    // As many new names again: the fleet's miss cache is full by now (its bound is a unit test,
    // stage.test.ts). What the heap still gains here, the server gains as much without the fleet
    // for made-up page paths: ~0.2 KiB per distinct URL, outside lib/fleet/.
    const more = Array.from({ length: STRANGER_NAMES }, () => `/_next/static/chunks/${hex(16)}.js`);
    statuses.push(...(await getAll(more)));
    names.push(...more);
    const probes = await probe.stop();
    const after = await memory();

    expect(statuses.filter((status) => status !== 404)).toEqual([]);
    // Only the names asked for, each once.
    expect(asked.length).toBeLessThanOrEqual(names.length);
    expect(new Set(asked).size).toBe(asked.length);
    expect(asked.every((target) => names.includes(target))).toBe(true);
    expect(probes.failures).toBe(0);
    expect((after.heapUsed - before.heapUsed) / MIB).toBeLessThan(MAX_HEAP_GROWTH_MIB);
    recordResult({
      scenario: `fleet: ${STRANGER_NAMES} made-up chunk names`,
      requests: names.length,
      failures: statuses.filter((status) => status !== 404).length,
      worstLatencyMs: probes.slowestMs,
      note: `peer asked ${asked.length} times; live heap ${(before.heapUsed / MIB).toFixed(1)} → ${(middle.heapUsed / MIB).toFixed(1)} → ${(after.heapUsed / MIB).toFixed(1)} MiB; readiness ${probes.probes} probes, ${probes.failures} failed`,
    });
  }, 120_000);

  it('asks the peer nothing for the same names again while they are remembered', async () => {
    const names = Array.from({ length: 100 }, () => `/_next/static/chunks/${hex(16)}.js`);
    await getAll(names);
    const first = asked.length;
    await getAll(names);
    await getAll(names);
    expect(first).toBe(100);
    expect(asked).toHaveLength(first);
  });
});

describe('names built to reach something else through a peer', () => {
  it.each([
    '/_next/static/chunks/../../api/health.js',
    '/_next/static/chunks/%2e%2e/%2e%2e/api/health.js',
    '/_next/static/chunks/..%2F..%2Fapi%2Fhealth.js',
    '/_next/static/chunks/%2F%2Fevil.example%2Fa.js',
    '/_next/static/chunks/http:%2F%2Fevil.example%2Fa.js',
    '/_next/static/chunks/@evil.example/a.js',
    '/_next/static/chunks/a.js%00.png',
    '/_next/static/chunks/a.js?x=http://evil.example/',
    '/_next/static/secret/a.js',
    '/_next/static/x/_buildManifest.js/..',
    '/_next/data/anotherBuild/..%2F..%2Fapi%2Fhealth.json',
    '/_next/data/..%2FanotherBuild/a.json',
    '/_next/data/anotherBuild/a.json#fragment',
    '/_next/image?url=http://evil.example/',
    `/_next/static/chunks/${'a'.repeat(2000)}.js`,
  ])('%s reaches the peer as that name or not at all', async (target) => {
    const answer = await get(target);
    // A clear answer that is no file: Next's 404, 400 or its redirect of a path with `..` in it.
    expect(answer.status).toBeGreaterThanOrEqual(300);
    expect(answer.status).toBeLessThan(500);
    // Whatever reached the peer is a path of Next's build files with no query, on the peer's own address.
    for (const seen of asked)
      expect(seen).toMatch(/^\/_next\/(static|data)\/[A-Za-z0-9_\-[\]().@+~/]+\.(js|json)$/);
  });

  it('never forwards a method other than GET or HEAD', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS', 'PATCH']) {
      await sendRaw(server.port, buildRequest({ method, target: `/_next/static/chunks/${hex(16)}.js` }));
    }
    expect(asked).toEqual([]);
  });
});

// Each scenario starts with the peer forgiven: the slow one waits out the back-off its flood caused,
// and every other ends on the peer's good answer after it.
describe('a peer that is slow, dead or lying costs a visitor at most the timeout, and is never cached', () => {
  it(`slow: a flood of ${MAX_IN_FLIGHT_PER_PEER * 4} requests at once reaches the peer at most ${MAX_IN_FLIGHT_PER_PEER} times; every visitor gets 503 and readiness holds`, async () => {
    const held: ServerResponse[] = [];
    behaviour = (_, res) => held.push(res);
    const probe = probeReadiness(server.port);
    const names = Array.from(
      { length: MAX_IN_FLIGHT_PER_PEER * 4 },
      () => `/_next/static/chunks/${hex(16)}.js`,
    );
    const statuses = await getAll(names, names.length);
    const probes = await probe.stop();
    for (const res of held) res.destroy();
    expect(new Set(statuses)).toEqual(new Set([503]));
    expect(asked.length).toBeLessThanOrEqual(MAX_IN_FLIGHT_PER_PEER);
    expect(probes.failures).toBe(0);
    recordResult({
      scenario: 'fleet: a peer that never answers',
      requests: names.length,
      failures: statuses.filter((status) => status !== 503).length,
      worstLatencyMs: probes.slowestMs,
      note: `all 503 after the ${FETCH_TIMEOUT_MS} ms timeout or at once; peer asked ${asked.length} times`,
    });
    await afterBackoff();
  }, 30_000);

  it('dead (closes every connection): 503 with Retry-After, then the file is asked for again', async () => {
    behaviour = (req) => req.socket.destroy();
    const name = `/_next/static/chunks/${hex(16)}.js`;
    const answer = await get(name);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toEqual(['1']);
    await afterBackoff();
    behaviour = (_, res) =>
      res.writeHead(200, { 'Content-Type': 'application/javascript', 'Content-Length': '2' }).end('ok');
    expect((await get(name)).status).toBe(200);
  }, 20_000);

  it.each<[string, Behaviour]>([
    ['answers 500', (_, res) => res.writeHead(500).end('internal detail')],
    [
      'declares a huge body',
      (_, res) => {
        res.writeHead(200, { 'Content-Length': String(1024 * MIB) });
        res.write('x');
      },
    ],
    [
      'sends less than it declares',
      (_, res) => {
        res.writeHead(200, { 'Content-Length': '1000' });
        res.write('short');
        setTimeout(() => res.destroy(), 20);
      },
    ],
    [
      'sends its body too slowly',
      (_, res) => {
        res.writeHead(200, { 'Content-Length': '1000' });
        res.write('slow');
      },
    ],
  ])(
    'that %s: the visitor gets no whole file, and the next visitor is answered by a good peer',
    async (_, lie) => {
      behaviour = lie;
      const name = `/_next/static/chunks/${hex(16)}.js`;
      const answer = await get(name, FETCH_TIMEOUT_MS * 4);
      // 503 before any byte was passed on, or an answer cut short of what it declared: never a whole file.
      const declared = Number(answer.headers['content-length']?.[0] ?? NaN);
      if (answer.status !== 503) {
        expect(answer.status).toBe(200);
        expect(Buffer.byteLength(answer.body, 'latin1')).toBeLessThan(declared);
      }
      expect(answer.body).not.toContain('internal detail');
      await afterBackoff();
      behaviour = (_req, res) =>
        res.writeHead(200, { 'Content-Type': 'application/javascript', 'Content-Length': '2' }).end('ok');
      const again = await get(name);
      expect(again.status).toBe(200);
      expect(again.body).toBe('ok');
    },
    20_000,
  );
});
