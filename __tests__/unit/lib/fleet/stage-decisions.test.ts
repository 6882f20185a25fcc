// The fleet stage's own decisions, against a directory the test controls: when the misses it
// remembers are forgotten, when it asks who the peers are, how many peers it asks and for how
// long, and what it answers when something inside it fails.
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Directory, Peer } from '@lib/fleet/directory';
import { HOP_HEADER, IDENTITY_PATH } from '@lib/fleet/paths';
import {
  createFleet,
  type FleetOptions,
  MAX_BUILDS_ASKED,
  MISS_KEPT_MS,
  MISSES_KEPT,
} from '@lib/fleet/stage';
import { recorderSlot } from '@lib/metrics/record';
import { recorderWith } from '../../../support/recorder';

const SELF = { build: 'buildNew', instance: 'instanceSelf' };
const GONE = '/_next/static/chunks/gone-1.js';

let clock = 1_000_000;
let counted: string[];
const servers: Server[] = [];

/** A directory whose answers the test sets, counting what the stage asks of it. */
function stubDirectory(initial: Partial<{ peers: Peer[]; leftOut: number; known: string[] }> = {}) {
  const state = { peers: initial.peers ?? [], leftOut: initial.leftOut ?? 0, known: initial.known ?? [] };
  const calls = {
    refreshSoon: 0,
    introduced: 0,
    stop: 0,
    candidates: [] as (string | null)[],
    failed: [] as Peer[],
  };
  let generation = 0;
  const directory: Directory = {
    candidates: (build) => {
      calls.candidates.push(build);
      return { peers: state.peers, leftOut: state.leftOut };
    },
    knows: (build) => state.known.includes(build),
    peerBases: () => [],
    knowsInstance: (instance) => instance === 'instanceKnown',
    refresh: () => Promise.resolve(),
    refreshSoon: () => {
      calls.refreshSoon += 1;
      return Promise.resolve();
    },
    introduced: () => {
      calls.introduced += 1;
    },
    generation: () => generation,
    summary: () => ({ peers: state.peers.length, builds: 0 }),
    markFailed: (peer) => void calls.failed.push(peer),
    start: () => Promise.resolve(),
    stop: () => {
      calls.stop += 1;
    },
  };
  return { directory, state, calls, changeFleet: () => (generation += 1) };
}

function fleetOn(directory: Directory, timeoutMs = 1000, options: Partial<FleetOptions> = {}) {
  return createFleet({
    sources: [],
    self: SELF,
    ownFiles: new Set(),
    timeoutMs,
    directory,
    now: () => clock,
    ...options,
  });
}

/** A request and response as far as the stage uses them when it asks no peer. */
function exchange(path: string, method = 'GET', headers: Record<string, string> = {}) {
  const answer = { status: 0, headers: {} as Record<string, unknown>, body: '', destroyed: false };
  const req = { method, url: path, headers } as unknown as IncomingMessage;
  const set: Record<string, unknown> = {};
  const fake = {
    headersSent: false,
    destroyed: false,
    hasHeader: (name: string) => name.toLowerCase() in set,
    setHeader(name: string, value: unknown) {
      set[name.toLowerCase()] = value;
      return fake;
    },
    writeHead(status: number, headers: Record<string, unknown>) {
      answer.status = status;
      answer.headers = { ...set, ...headers };
      fake.headersSent = true;
      return fake;
    },
    end(body?: string) {
      answer.body = body ?? '';
    },
    destroy() {
      answer.destroyed = true;
      fake.destroyed = true;
    },
  };
  const res = fake as unknown as ServerResponse;
  return { req, res, answer };
}

/** Runs a request through the stage: 'next' when it went to Next, else the stage's status. */
async function ask(fleet: ReturnType<typeof fleetOn>, path: string, method = 'GET') {
  const { req, res, answer } = exchange(path, method);
  return new Promise<string>((resolve) => {
    const poll = setInterval(() => {
      if (answer.status) done(String(answer.status));
    }, 1);
    const done = (outcome: string) => {
      clearInterval(poll);
      resolve(outcome);
    };
    if (!fleet.take(req, res, path, () => done('next'))) done('not taken');
  });
}

/** A peer on loopback whose file answers the test sets. */
async function loopbackPeer(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const asked: IncomingMessage[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req);
    handler(req, res);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const peer: Peer = {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    identity: { build: 'buildOld', instance: `instance${servers.length}` },
    unanswered: 0,
    failedUntil: 0,
    inFlight: 0,
    agent: new http.Agent({ keepAlive: false }),
  };
  return { peer, asked };
}

/** The stage in front of a stand-in Next (404) on loopback, for requests that reach a peer. */
async function serving(fleet: ReturnType<typeof fleetOn>) {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const toNext = () => res.writeHead(404).end('Next: not found');
    if (!fleet.take(req, res, path, toNext)) toNext();
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

beforeEach(() => {
  counted = [];
  recorderSlot.write(recorderWith({ fleet: (kind, outcome) => counted.push(`${kind} ${outcome}`) }));
});
afterEach(async () => {
  recorderSlot.clear();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

describe('the misses the stage remembers', () => {
  it('are forgotten when the fleet changes: a new build may have the file', async () => {
    const stub = stubDirectory();
    const fleet = fleetOn(stub.directory);
    await ask(fleet, GONE);
    await ask(fleet, GONE);
    expect(counted).toEqual(['static missing', 'static remembered']);
    stub.changeFleet();
    await ask(fleet, GONE);
    await ask(fleet, GONE);
    expect(counted).toEqual(['static missing', 'static remembered', 'static missing', 'static remembered']);
  });

  it(`are forgotten exactly ${MISS_KEPT_MS} ms after the miss`, async () => {
    const fleet = fleetOn(stubDirectory().directory);
    await ask(fleet, GONE);
    clock += MISS_KEPT_MS - 1;
    await ask(fleet, GONE);
    clock += 1;
    await ask(fleet, GONE);
    expect(counted).toEqual(['static missing', 'static remembered', 'static missing']);
  });

  it('are each kept: a second miss does not push out the first', async () => {
    const fleet = fleetOn(stubDirectory().directory);
    await ask(fleet, GONE);
    await ask(fleet, '/_next/static/chunks/gone-2.js');
    await ask(fleet, GONE);
    expect(counted).toEqual(['static missing', 'static missing', 'static remembered']);
  });

  it(`are at most ${MISSES_KEPT}: the oldest goes first`, async () => {
    const fleet = fleetOn(stubDirectory().directory);
    const name = (i: number) => `/_next/static/chunks/miss-${i}.js`;
    for (let i = 0; i <= MISSES_KEPT; i += 1) await ask(fleet, name(i));
    counted = [];
    await ask(fleet, name(1));
    await ask(fleet, name(0));
    expect(counted).toEqual(['static remembered', 'static missing']);
  });

  it('are of one build’s manifest, not of another build’s file of the same name', async () => {
    const fleet = fleetOn(stubDirectory({ known: ['buildA', 'buildB'] }).directory);
    await ask(fleet, '/_next/static/buildA/_buildManifest.js');
    await ask(fleet, '/_next/static/buildB/_buildManifest.js');
    expect(counted).toEqual(['static missing', 'static missing']);
  });

  it('are never of a page’s data: the page answers for itself each time', async () => {
    const fleet = fleetOn(stubDirectory({ known: ['buildOld'] }).directory);
    await ask(fleet, '/_next/data/buildOld/orders.json');
    await ask(fleet, '/_next/data/buildOld/orders.json');
    expect(counted).toEqual(['data missing', 'data missing']);
  });
});

describe('when the stage asks who the peers are', () => {
  it.each([
    ['a build no peer is known to serve', '/_next/static/buildOther/_buildManifest.js', 1],
    ['a build a peer is known to serve', '/_next/static/buildOld/_buildManifest.js', 0],
    ['a file whose name has no build', GONE, 0],
  ])('for %s (%s): %d refresh', async (_, path, refreshes) => {
    const stub = stubDirectory({ known: ['buildOld'] });
    await ask(fleetOn(stub.directory), path);
    expect(stub.calls.refreshSoon).toBe(refreshes);
  });

  it('asks for files of the build the path names, or of any other build', async () => {
    const stub = stubDirectory({ known: ['buildOld'] });
    const fleet = fleetOn(stub.directory);
    await ask(fleet, '/_next/static/buildOld/_buildManifest.js');
    await ask(fleet, GONE);
    expect(stub.calls.candidates).toEqual(['buildOld', null]);
  });

  it.each([
    ['an instance it has not met', { [HOP_HEADER]: 'instanceNew' }, 1],
    ['an instance it knows', { [HOP_HEADER]: 'instanceKnown' }, 0],
    ['a name no instance has', { [HOP_HEADER]: '../etc' }, 0],
    ['no name at all', {}, 0],
  ])('when %s asks who this one is (%o): %d introduction', (_, headers, introductions) => {
    const stub = stubDirectory();
    const { req, res, answer } = exchange(IDENTITY_PATH, 'GET', headers);
    expect(fleetOn(stub.directory).take(req, res, IDENTITY_PATH, () => {})).toBe(true);
    expect(stub.calls.introduced).toBe(introductions);
    expect(answer.status).toBe(200);
    expect(answer.headers['Content-Type']).toBe('application/json');
    expect(JSON.parse(answer.body)).toEqual(SELF);
  });
});

describe('what the stage leaves to Next at once', () => {
  it.each([
    ['this build’s data', '/_next/data/buildNew/orders.json'],
    ['this build’s manifest', '/_next/static/buildNew/_buildManifest.js'],
  ])('%s: not taken, no peer looked for', (_, path) => {
    const stub = stubDirectory({ known: ['buildNew'] });
    const { req, res } = exchange(path);
    expect(fleetOn(stub.directory).take(req, res, path, () => {})).toBe(false);
    expect(stub.calls.candidates).toEqual([]);
  });
});

describe('the peers the stage asks', () => {
  it(`are ${MAX_BUILDS_ASKED} at most, one per build, and a miss at all of them is Next’s 404`, async () => {
    const peers = await Promise.all([1, 2, 3].map(() => loopbackPeer((_, res) => res.writeHead(404).end())));
    const fleet = fleetOn(stubDirectory({ peers: peers.map((p) => p.peer) }).directory);
    const answer = await get(`${await serving(fleet)}${GONE}`);
    expect(answer.status).toBe(404);
    expect(peers.map((p) => p.asked.length)).toEqual([1, 1, 0]);
    expect(counted).toEqual(['static missing']);
  });

  it('are asked for a static file without the query, and for data with it', async () => {
    const old = await loopbackPeer((_, res) => res.writeHead(404).end());
    const fleet = fleetOn(stubDirectory({ peers: [old.peer], known: ['buildOld'] }).directory);
    const base = await serving(fleet);
    await get(`${base}${GONE}?dpl=abc`);
    await get(`${base}/_next/data/buildOld/orders.json?id=7`);
    expect(old.asked.map((req) => req.url)).toEqual([GONE, '/_next/data/buildOld/orders.json?id=7']);
  });

  it('are not asked once the timeout has passed on an earlier one', async () => {
    const slow = await loopbackPeer((_, res) => {
      clock += 10_000;
      res.writeHead(404).end();
    });
    const next = await loopbackPeer((_, res) => res.writeHead(404).end());
    const fleet = fleetOn(stubDirectory({ peers: [slow.peer, next.peer] }).directory, 10_000);
    expect((await get(`${await serving(fleet)}${GONE}`)).status).toBe(404);
    expect([slow.asked.length, next.asked.length]).toEqual([1, 0]);
  });

  it('are still asked while some of the timeout is left', async () => {
    // A second of the timeout left on the stage's clock: time enough for the next peer.
    const slow = await loopbackPeer((_, res) => {
      clock += 9_000;
      res.writeHead(404).end();
    });
    const next = await loopbackPeer((_, res) => res.writeHead(404).end());
    const fleet = fleetOn(stubDirectory({ peers: [slow.peer, next.peer] }).directory, 10_000);
    await get(`${await serving(fleet)}${GONE}`);
    expect([slow.asked.length, next.asked.length]).toEqual([1, 1]);
  });

  it('are not asked once the visitor has gone', async () => {
    let visitor: http.ClientRequest | undefined;
    const first = await loopbackPeer((_, res) => {
      visitor?.destroy();
      setTimeout(() => res.writeHead(404).end(), 50);
    });
    const second = await loopbackPeer((_, res) => res.writeHead(404).end());
    const fleet = fleetOn(stubDirectory({ peers: [first.peer, second.peer] }).directory);
    const base = await serving(fleet);
    await new Promise<void>((resolve) => {
      visitor = http.get(`${base}${GONE}`, { agent: false });
      visitor.on('error', () => setTimeout(resolve, 150));
    });
    expect([first.asked.length, second.asked.length]).toEqual([1, 0]);
  });

  it('answer a miss with Next’s 404 even when another peer is left out, and it is remembered', async () => {
    const old = await loopbackPeer((_, res) => res.writeHead(404).end());
    const fleet = fleetOn(stubDirectory({ peers: [old.peer], leftOut: 1 }).directory);
    const base = await serving(fleet);
    expect((await get(`${base}${GONE}`)).status).toBe(404);
    expect((await get(`${base}${GONE}`)).status).toBe(404);
    expect(counted).toEqual(['static missing', 'static remembered']);
  });

  it('when the only one that may have it is left out: 503, with a next step', async () => {
    const fleet = fleetOn(stubDirectory({ leftOut: 1 }).directory);
    const answer = await get(`${await serving(fleet)}${GONE}`);
    expect(answer).toEqual({ status: 503, body: 'The file could not be fetched. Try again.' });
    expect(counted).toEqual(['static failed']);
  });

  it('that fails is marked failed in the directory', async () => {
    const broken = await loopbackPeer((_, res) => res.writeHead(500).end());
    const stub = stubDirectory({ peers: [broken.peer] });
    expect((await get(`${await serving(fleetOn(stub.directory))}${GONE}`)).status).toBe(503);
    expect(stub.calls.failed).toEqual([broken.peer]);
  });
});

describe('when something inside the stage fails', () => {
  it('before the answer began: the visitor gets 503 all the same', async () => {
    const stub = stubDirectory();
    stub.directory.candidates = () => {
      throw new Error('directory broke');
    };
    const { req, res, answer } = exchange(GONE);
    expect(fleetOn(stub.directory).take(req, res, GONE, () => {})).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answer.status).toBe(503);
    expect(answer.body).toBe('The file could not be fetched. Try again.');
    expect(answer.destroyed).toBe(false);
  });

  it('after the answer began: the visitor’s connection is closed, never a second answer', async () => {
    const stub = stubDirectory();
    const { req, res, answer } = exchange(GONE);
    stub.directory.candidates = () => {
      res.writeHead(200, {});
      throw new Error('directory broke');
    };
    fleetOn(stub.directory).take(req, res, GONE, () => {});
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(answer.status).toBe(200);
    expect(answer.destroyed).toBe(true);
  });
});

it('stops the directory when it stops', () => {
  const stub = stubDirectory();
  fleetOn(stub.directory).stop();
  expect(stub.calls.stop).toBe(1);
});

describe('builds with a deploymentId (Next’s skew protection), which share one build id', () => {
  // Next's constant build id for every deploymentId build (node_modules/next/dist/build/index.js).
  const NEXT_ID = 'build-TfctsWXpff2fKS';
  const MANIFEST = `/_next/static/${NEXT_ID}/_buildManifest.js`;
  const DATA = `/_next/data/${NEXT_ID}/orders.json`;
  const deploymentFleet = (stub: ReturnType<typeof stubDirectory>, options: Partial<FleetOptions> = {}) =>
    fleetOn(stub.directory, 1000, {
      self: { build: 'deployTwo', instance: 'instanceSelf' },
      buildId: NEXT_ID,
      ownFiles: new Set([`${NEXT_ID}/_buildManifest.js`, 'chunks/own-1.js']),
      ...options,
    });
  /** Whether the stage takes `url` (path and query), and which builds it asked the directory for. */
  function decide(
    fleet: ReturnType<typeof fleetOn>,
    stub: ReturnType<typeof stubDirectory>,
    url: string,
    headers = {},
  ) {
    const { req, res } = exchange(url, 'GET', headers);
    const taken = fleet.take(req, res, url.split('?')[0]!, () => {});
    return { taken, asked: stub.calls.candidates };
  }

  it.each([
    ['its own manifest, named by its own deployment', `${MANIFEST}?dpl=deployTwo`, {}],
    ['its own manifest, named by none', MANIFEST, {}],
    ['its own manifest, named by a malformed one', `${MANIFEST}?dpl=..%2Fx`, {}],
    [
      'a chunk it has, named by another deployment: the same bytes',
      '/_next/static/chunks/own-1.js?dpl=deployOne',
      {},
    ],
    ['its own data, named by its own deployment', DATA, { 'x-deployment-id': 'deployTwo' }],
    ['data of Next’s build id, named by no deployment', DATA, {}],
    ['data with `dpl` in its query only: Next names data by the header', `${DATA}?dpl=deployOne`, {}],
  ])('leaves %s to Next (%s)', (_, url, headers) => {
    const stub = stubDirectory({ known: ['deployOne'] });
    expect(decide(deploymentFleet(stub), stub, url, headers)).toEqual({ taken: false, asked: [] });
  });

  it.each([
    ['the manifest of the same name', `${MANIFEST}?dpl=deployOne`, {}],
    ['the manifest, `dpl` among other parameters', `${MANIFEST}?v=1&dpl=deployOne`, {}],
    [
      'a chunk it lacks: that build only, not every other',
      '/_next/static/chunks/gone-1.js?dpl=deployOne',
      {},
    ],
    ['a page’s data', DATA, { 'x-deployment-id': 'deployOne' }],
  ])('asks the build another deployment id names for %s (%s)', (_, url, headers) => {
    const stub = stubDirectory({ known: ['deployOne'] });
    expect(decide(deploymentFleet(stub), stub, url, headers)).toEqual({ taken: true, asked: ['deployOne'] });
  });

  it('remembers a miss of one deployment’s manifest, not of another’s under the same name', async () => {
    const fleet = deploymentFleet(stubDirectory({ known: ['deployOne', 'deployZero'] }));
    for (const url of [
      `${MANIFEST}?dpl=deployOne`,
      `${MANIFEST}?dpl=deployZero`,
      `${MANIFEST}?dpl=deployOne`,
    ]) {
      const { req, res } = exchange(url);
      await new Promise<void>((resolve) => fleet.take(req, res, MANIFEST, resolve) || resolve());
    }
    expect(counted).toEqual(['static missing', 'static missing', 'static remembered']);
  });

  it('streams the manifest from the peer of that deployment, asked without the query', async () => {
    const old = await loopbackPeer((_, res) =>
      res.writeHead(200, { 'content-type': 'text/javascript' }).end('old'),
    );
    old.peer.identity = { build: 'deployOne', instance: 'instanceOld' };
    const fleet = deploymentFleet(stubDirectory({ peers: [old.peer], known: ['deployOne'] }));
    const answer = await get(`${await serving(fleet)}${MANIFEST}?dpl=deployOne`);
    expect(answer).toEqual({ status: 200, body: 'old' });
    expect(old.asked.map((req) => [req.url, req.headers['x-deployment-id']])).toEqual([
      [MANIFEST, undefined],
    ]);
  });
});

describe('build files under basePath or an assetPrefix path', () => {
  it.each([
    ['/shop/_next/static/chunks/gone-1.js', [null]],
    ['/assets/_next/static/chunks/gone-1.js', [null]],
    ['/shop/_next/data/buildOld/orders.json', ['buildOld']],
    ['/shop/_next/static/chunks/own-1.js', []],
    ['/elsewhere/_next/static/chunks/gone-1.js', []],
  ])('%s: asked for %j', (path, asked) => {
    const stub = stubDirectory({ known: ['buildOld'] });
    const fleet = fleetOn(stub.directory, 1000, {
      prefixes: ['/assets', '/shop'],
      ownFiles: new Set(['chunks/own-1.js']),
    });
    const { req, res } = exchange(path);
    expect(fleet.take(req, res, path, () => {})).toBe(asked.length > 0);
    expect(stub.calls.candidates).toEqual(asked);
  });
});
