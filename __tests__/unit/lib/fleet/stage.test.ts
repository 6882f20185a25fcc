// The fleet stage against real peers on loopback: what it asks of them, what it passes back, and
// what a slow, dead or lying peer can cost.
import { recorderWith } from '../../../support/recorder';
import http, { type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createDirectory,
  FORGET_AFTER_UNANSWERED,
  type Identity,
  PEER_BACKOFF_MS,
  UNKNOWN_BUILD_REFRESH_MS,
} from '@lib/fleet/directory';
import { HOP_HEADER, IDENTITY_PATH } from '@lib/fleet/paths';
import { createFleet, type Fleet, MAX_FILE_BYTES, MISS_KEPT_MS, MISSES_KEPT } from '@lib/fleet/stage';
import { recorderSlot } from '@lib/metrics/record';
import { rawRequest } from '../../../support/http';
import { until } from '../../../support/until';

const SELF: Identity = { build: 'buildNew', instance: 'instanceSelf' };
const OLD: Identity = { build: 'buildOld', instance: 'instanceOld' };
const CHUNK = '/_next/static/chunks/pages/orders-4f1c2a.js';
const TIMEOUT_MS = 300;

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
const servers: Server[] = [];
let fleets: Fleet[] = [];
let counted: string[];
/** How far the instances' clock is ahead of the real one. */
let skewMs = 0;
const now = () => Date.now() + skewMs;

async function listen(handler: Handler): Promise<string> {
  const server = http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A peer that says it is `identity` and answers files with `files` (404 otherwise). */
function peer(identity: Identity | string, files: Handler = (_, res) => res.writeHead(404).end()) {
  const asked: IncomingMessage[] = [];
  const base = listen((req, res) => {
    if (req.url === IDENTITY_PATH) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      return res.end(typeof identity === 'string' ? identity : JSON.stringify(identity));
    }
    asked.push(req);
    files(req, res);
  });
  return { base, asked };
}

/** The instance under test: the fleet stage, then "Next", which answers 404 for what it does not have. */
async function instance(
  peerBases: string[],
  options: { ownFiles?: string[]; lookup?: (name: string) => Promise<string[]>; timeoutMs?: number } = {},
) {
  const sources = peerBases.map((base) => ({ kind: 'url' as const, base }));
  const directory = options.lookup
    ? createDirectory({
        sources: [{ kind: 'dns', name: 'peers.test', port: Number(new URL(peerBases[0]!).port) }],
        self: SELF,
        timeoutMs: TIMEOUT_MS,
        maxInFlight: 2,
        lookup: options.lookup,
        now,
      })
    : createDirectory({ sources, self: SELF, timeoutMs: TIMEOUT_MS, maxInFlight: 2, now });
  const fleet = createFleet({
    sources,
    self: SELF,
    ownFiles: new Set(options.ownFiles ?? []),
    timeoutMs: options.timeoutMs ?? TIMEOUT_MS,
    directory,
    now,
  });
  fleets.push(fleet);
  await fleet.start();
  const toNextCalls: string[] = [];
  const base = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const toNext = () => {
      toNextCalls.push(path);
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('Next: not found');
    };
    if (!fleet.take(req, res, path, toNext)) toNext();
  });
  return { base, fleet, toNextCalls };
}

beforeEach(() => {
  counted = [];
  skewMs = 0;
  recorderSlot.write(recorderWith({ fleet: (kind, outcome) => counted.push(`${kind} ${outcome}`) }));
});
afterEach(async () => {
  recorderSlot.clear();
  for (const fleet of fleets) fleet.stop();
  fleets = [];
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

/** How an answer ended: whole (every byte declared, then the end), or cut. */
function answerEnd(base: string, path: string): Promise<'whole' | 'cut'> {
  return new Promise((resolve) => {
    const req = http.get(`${base}${path}`, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.complete ? 'whole' : 'cut'));
      res.on('error', () => resolve('cut'));
      res.on('close', () => resolve(res.complete ? 'whole' : 'cut'));
    });
    req.on('error', () => resolve('cut'));
  });
}

/** A file as Next serves it, with a header of the peer's own that must not travel. */
const serveChunk: Handler = (req, res) => {
  if (req.url !== CHUNK) return res.writeHead(404).end();
  res.writeHead(200, {
    'Content-Type': 'application/javascript; charset=UTF-8',
    'Cache-Control': 'public, max-age=31536000, immutable',
    ETag: '"abc"',
    'Set-Cookie': 'peer=secret',
    'X-Peer-Internal': 'yes',
  });
  res.end('console.log("old build");');
};

describe('a request for another build’s file', () => {
  it('is answered by the peer that has it, with the headers Next gives such files and no others', async () => {
    const old = peer(OLD, serveChunk);
    const self = await instance([await old.base]);
    const answer = await rawRequest(self.base, CHUNK);
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('console.log("old build");');
    expect(answer.headers['content-type']).toBe('application/javascript; charset=UTF-8');
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.etag).toBe('"abc"');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-peer-internal']).toBeUndefined();
    // Marked as a peer's request, so the peer answers it from its own files and never forwards it.
    expect(old.asked[0]!.headers[HOP_HEADER]).toBe('1');
    expect(counted).toEqual(['static found']);
  });

  it('is asked of the peer over one kept-alive connection, not one connection a file', async () => {
    const old = peer(OLD, serveChunk);
    const oldBase = await old.base;
    let connections = 0;
    servers[servers.length - 1]!.on('connection', () => (connections += 1));
    const self = await instance([oldBase]);
    const before = connections; // the directory's identity question (fetch, its own client)
    for (let i = 0; i < 3; i += 1) expect((await rawRequest(self.base, CHUNK)).status).toBe(200);
    expect(connections - before).toBe(1);
  });

  it('answers HEAD without a body', async () => {
    const old = peer(OLD, serveChunk);
    const self = await instance([await old.base]);
    const answer = await rawRequest(self.base, CHUNK, { method: 'HEAD' });
    expect(answer.status).toBe(200);
    expect(old.asked[0]!.method).toBe('HEAD');
  });

  it('asks for a build manifest only the peer whose build it names', async () => {
    const old = peer(OLD, (req, res) =>
      res.writeHead(200, { 'Content-Type': 'application/javascript' }).end(req.url),
    );
    const other = peer({ build: 'buildOther', instance: 'instanceOther' });
    const self = await instance([await old.base, await other.base]);
    const answer = await rawRequest(self.base, '/_next/static/buildOld/_buildManifest.js');
    expect(answer.body).toBe('/_next/static/buildOld/_buildManifest.js');
    expect((await other.asked).length).toBe(0);
  });

  it('passes a page’s data request on with the visitor’s cookies, and the page’s answer back', async () => {
    const old = peer(OLD, (req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Set-Cookie': 'session=renewed' });
      res.end(
        JSON.stringify({
          pageProps: { cookie: req.headers.cookie, forwardedFor: req.headers['x-forwarded-for'] },
        }),
      );
    });
    const self = await instance([await old.base]);
    const answer = await rawRequest(self.base, '/_next/data/buildOld/orders/7.json?id=7', {
      headers: { Cookie: 'session=abc', Connection: 'keep-alive' },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({
      pageProps: { cookie: 'session=abc', forwardedFor: '127.0.0.1' },
    });
    expect(answer.headers['set-cookie']).toEqual(['session=renewed']);
    expect(old.asked[0]!.url).toBe('/_next/data/buildOld/orders/7.json?id=7');
    expect(counted).toEqual(['data found']);
  });
});

describe('what the fleet never takes', () => {
  it.each([
    ['this build’s own file', CHUNK, {}, 'GET'],
    ['this build’s own data', '/_next/data/buildNew/orders/7.json', {}, 'GET'],
    ['this build’s own manifest', '/_next/static/buildNew/_buildManifest.js', {}, 'GET'],
    ['a request a peer sent (one hop)', '/_next/static/chunks/other-1.js', { [HOP_HEADER]: '1' }, 'GET'],
    ['a POST', '/_next/static/chunks/other-1.js', {}, 'POST'],
    ['a name Next never writes', '/_next/static/chunks/../../api/health.js', {}, 'GET'],
    ['any other path', '/orders/7', {}, 'GET'],
  ])('%s: Next answers it, and no peer is asked', async (_, path, headers, method) => {
    const old = peer(OLD, serveChunk);
    const self = await instance([await old.base], { ownFiles: ['chunks/pages/orders-4f1c2a.js'] });
    const answer = await rawRequest(self.base, path, { headers, method });
    expect(answer.body).toBe('Next: not found');
    expect(old.asked).toEqual([]);
  });

  it('says who this instance is at the identity path, to GET and HEAD only', async () => {
    const self = await instance([]);
    const answer = await rawRequest(self.base, IDENTITY_PATH);
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(answer.body)).toEqual(SELF);
    expect((await rawRequest(self.base, IDENTITY_PATH, { method: 'POST' })).body).toBe('Next: not found');
  });
});

describe('a file no instance has', () => {
  it('is Next’s 404, remembered so that asking again costs no peer a request', async () => {
    const old = peer(OLD);
    const self = await instance([await old.base]);
    for (let i = 0; i < 5; i += 1)
      expect((await rawRequest(self.base, '/_next/static/chunks/gone-1.js')).status).toBe(404);
    expect(old.asked).toHaveLength(1);
    expect(counted).toEqual(['static missing', ...Array(4).fill('static remembered')]);
  });

  it(`is remembered for ${MISS_KEPT_MS / 1000} s, then asked of the peers again`, async () => {
    const old = peer(OLD);
    const self = await instance([await old.base]);
    const gone = '/_next/static/chunks/gone-2.js';
    await rawRequest(self.base, gone);
    skewMs = MISS_KEPT_MS - 1000;
    expect((await rawRequest(self.base, gone)).status).toBe(404);
    expect(old.asked).toHaveLength(1);
    skewMs = MISS_KEPT_MS + 1000;
    expect((await rawRequest(self.base, gone)).status).toBe(404);
    expect(old.asked).toHaveLength(2);
    expect(counted).toEqual(['static missing', 'static remembered', 'static missing']);
  });

  it(`remembers at most ${MISSES_KEPT} misses, forgetting the oldest first`, async () => {
    const old = peer(OLD);
    // The bound is under test, not the peer's speed: on a busy machine one of 4,097 answers can take
    // longer than the other tests' 300 ms, and a peer that times out is left out for a while.
    const self = await instance([await old.base], { timeoutMs: 10_000 });
    const name = (i: number) => `/_next/static/chunks/miss-${i}.js`;
    for (let i = 0; i <= MISSES_KEPT; i += 1) await rawRequest(self.base, name(i));
    expect(old.asked).toHaveLength(MISSES_KEPT + 1);
    // The newest is still remembered; the first was pushed out by the last.
    await rawRequest(self.base, name(MISSES_KEPT));
    expect(old.asked).toHaveLength(MISSES_KEPT + 1);
    await rawRequest(self.base, name(0));
    expect(old.asked).toHaveLength(MISSES_KEPT + 2);
  }, 120_000);

  it('is Next’s 404 at once when no other build serves, with no peer asked', async () => {
    const same = peer({ build: SELF.build, instance: 'instanceTwin' }, serveChunk);
    const self = await instance([await same.base]);
    expect((await rawRequest(self.base, CHUNK)).status).toBe(404);
    expect(same.asked).toEqual([]);
  });
});

describe('a peer that fails', () => {
  /** The logger's `fleet.` lines; anything else (Jest's own output) goes through. */
  let lines: Record<string, unknown>[];
  beforeEach(() => {
    lines = [];
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream) as (chunk: string | Uint8Array) => boolean;
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        const text = String(chunk);
        if (!text.startsWith('{"level":')) return write(chunk);
        for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        return true;
      });
    }
  });
  afterEach(() => jest.restoreAllMocks());
  const told = () =>
    lines
      .filter((line) => String(line.event).startsWith('fleet.'))
      .map(({ level, event, peer, build, why }) => ({ level, event, peer, build, why }));

  it('is told to operators in one line per back-off, with its address, its build and why', async () => {
    const old = peer(OLD, (_, res) => res.writeHead(502).end());
    const self = await instance([await old.base]);
    // Two visitors at once (the helper's limit per peer), then one more while it is left out.
    await Promise.all([rawRequest(self.base, '/_next/static/chunks/a-1.js'), rawRequest(self.base, CHUNK)]);
    await rawRequest(self.base, CHUNK);
    expect(told()).toEqual([
      {
        level: 'warn',
        event: 'fleet.peer_failed',
        peer: await old.base,
        build: OLD.build,
        why: 'status 502',
      },
    ]);
    skewMs += PEER_BACKOFF_MS;
    await rawRequest(self.base, CHUNK);
    expect(told()).toHaveLength(2);
  });

  it('answering 500: the visitor gets 503 and Retry-After, and the answer is not remembered as a miss', async () => {
    let fail = true;
    const old = peer(OLD, (req, res) => (fail ? res.writeHead(500).end('broken') : serveChunk(req, res)));
    const self = await instance([await old.base]);
    const answer = await rawRequest(self.base, CHUNK);
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('1');
    expect(answer.body).not.toContain('broken');
    expect(counted).toEqual(['static failed']);
    // Left out for a while (503 again, not a remembered 404), then asked again: never cached.
    fail = false;
    expect((await rawRequest(self.base, CHUNK)).status).toBe(503);
    expect(old.asked).toHaveLength(1);
    skewMs += PEER_BACKOFF_MS;
    expect((await rawRequest(self.base, CHUNK)).status).toBe(200);
    expect(old.asked).toHaveLength(2);
  });

  it('is not blamed for a visitor who left before it answered: the next visitor is served by it', async () => {
    // A browser drops its prefetches as it navigates; a peer left out for that would cost every
    // request for its build's files a 503 for PEER_BACKOFF_MS.
    const held: ServerResponse[] = [];
    const old = peer(OLD, (req, res) => (req.url === CHUNK ? serveChunk(req, res) : held.push(res)));
    const self = await instance([await old.base]);
    await new Promise<void>((resolve) => {
      const req = http.get(`${self.base}/_next/static/chunks/dropped-1.js`, () => undefined);
      req.on('error', () => resolve());
      void until(() => held.length === 1).then(() => req.destroy());
    });
    await until(() => counted.length === 1);
    expect(counted).toEqual(['static gone']);
    expect((await rawRequest(self.base, CHUNK)).status).toBe(200);
    expect(counted).toEqual(['static gone', 'static found']);
    for (const res of held) res.destroy();
  });

  it('at its limit of fetches in flight: the next visitor gets 503 at once, not a place in a queue', async () => {
    const held: ServerResponse[] = [];
    const old = peer(OLD, (_, res) => held.push(res));
    const self = await instance([await old.base]);
    // The helper's limit is 2 per peer.
    const first = [
      rawRequest(self.base, '/_next/static/chunks/a-1.js'),
      rawRequest(self.base, '/_next/static/chunks/b-1.js'),
    ];
    while (held.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    expect((await rawRequest(self.base, '/_next/static/chunks/c-1.js')).status).toBe(503);
    expect(old.asked).toHaveLength(2);
    for (const res of held) res.writeHead(200, { 'Content-Type': 'application/javascript' }).end('ok');
    expect((await Promise.all(first)).map((answer) => answer.status)).toEqual([200, 200]);
  });

  it('not answering: the visitor gets 503 once the timeout has passed', async () => {
    const old = peer(OLD, () => {
      // Never answers.
    });
    const self = await instance([await old.base]);
    const answer = await rawRequest(self.base, CHUNK);
    expect(answer.status).toBe(503);
    expect(counted).toEqual(['static failed']);
  });

  it('dead (nothing listens): the visitor gets 503', async () => {
    const old = peer(OLD, (req) => req.socket.destroy());
    const self = await instance([await old.base]);
    expect((await rawRequest(self.base, CHUNK)).status).toBe(503);
  });

  it('declaring a body larger than any file Next writes: 503, nothing passed on', async () => {
    const old = peer(OLD, (_, res) => {
      res.writeHead(200, { 'Content-Length': String(MAX_FILE_BYTES + 1) });
      res.write('x');
    });
    const self = await instance([await old.base]);
    expect((await rawRequest(self.base, CHUNK)).status).toBe(503);
  });

  it('takes files of up to 16 MiB, as docs/fleet.md says', () => {
    expect(MAX_FILE_BYTES).toBe(16_777_216);
  });

  // Counted as it arrives, not only as declared: a peer that declares no length is cut at the bound.
  it.each([
    [MAX_FILE_BYTES, 'whole'],
    [MAX_FILE_BYTES + 1, 'cut'],
  ] as const)(
    'sending %d bytes with no length declared: the visitor’s answer is %s',
    async (bytes, end) => {
      const old = peer(OLD, (_, res) => {
        res.writeHead(200, { 'Content-Type': 'application/javascript' });
        const chunk = Buffer.alloc(1024 * 1024, 'x');
        let left = bytes;
        const pump = () => {
          while (left > 0 && !res.destroyed) {
            const part = chunk.subarray(0, Math.min(left, chunk.length));
            left -= part.length;
            if (!res.write(part)) return void res.once('drain', pump);
          }
          if (!res.destroyed) res.end();
        };
        pump();
      });
      const self = await instance([await old.base], { timeoutMs: 20_000 });
      expect(await answerEnd(self.base, CHUNK)).toBe(end);
      expect(counted).toEqual([end === 'whole' ? 'static found' : 'static cut']);
    },
    30_000,
  );

  it.each([
    [
      'sending less than it declared',
      (res: ServerResponse) => {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('only ten b');
        setTimeout(() => res.socket?.destroy(), 20);
      },
    ],
    [
      'sending more than it declared',
      (res: ServerResponse) => {
        // Raw bytes: node would refuse to write more than the declared length.
        res.socket!.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n' + 'x'.repeat(1000));
        res.socket!.end();
      },
    ],
    [
      'sending its body slower than the timeout',
      (res: ServerResponse) => {
        res.writeHead(200, { 'Content-Length': '100' });
        res.write('a start');
      },
    ],
    [
      'sending an endless body',
      (res: ServerResponse) => {
        res.writeHead(200);
        const chunk = Buffer.alloc(64 * 1024, 'x');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      },
    ],
  ])(
    '%s: the visitor’s answer is cut, never a whole file',
    async (_, answer) => {
      const old = peer(OLD, (_, res) => answer(res));
      const self = await instance([await old.base]);
      expect(await answerEnd(self.base, CHUNK)).toBe('cut');
      expect(counted).toEqual(['static cut']);
    },
    20_000,
  );
});

describe('who the peers are', () => {
  it('never asks an instance that answers with this instance’s own id for anything, nor asks it again', async () => {
    let identityAsks = 0;
    const me = await listen((req, res) => {
      if (req.url === IDENTITY_PATH) identityAsks += 1;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(SELF));
    });
    const self = await instance([me]);
    await self.fleet.directory.refresh();
    await self.fleet.directory.refresh();
    expect(identityAsks).toBe(1);
    expect(self.fleet.directory.summary()).toEqual({ peers: 0, builds: 0 });
    expect((await rawRequest(self.base, CHUNK)).status).toBe(404);
  });

  it.each([
    ['not JSON', 'hello'],
    ['no build', JSON.stringify({ instance: 'x' })],
    ['a build id Next never makes', JSON.stringify({ build: '../../etc', instance: 'x' })],
    ['an identity longer than any', JSON.stringify({ build: 'b', instance: 'x', pad: 'x'.repeat(5000) })],
  ])('does not know a peer whose identity is %s, and asks it for nothing', async (_, identity) => {
    const liar = peer(identity, serveChunk);
    const self = await instance([await liar.base]);
    expect(self.fleet.directory.summary().peers).toBe(0);
    expect((await rawRequest(self.base, CHUNK)).status).toBe(404);
    expect(liar.asked).toEqual([]);
  });

  it.each([
    ['never answers', (res: ServerResponse) => void res],
    ['never ends its answer', (res: ServerResponse) => res.writeHead(200).write('{"build":"')],
  ])('does not know a peer that %s: a refresh waits for it only the timeout', async (_, answer) => {
    const asked: (string | string[] | undefined)[] = [];
    const stuck = await listen((req, res) => {
      if (req.url === IDENTITY_PATH) {
        asked.push(req.headers[HOP_HEADER]);
        return answer(res);
      }
      serveChunk(req, res);
    });
    // (Without the timeout, the start's refresh and this one never end: the test times out.)
    const self = await instance([stuck]);
    await self.fleet.directory.refresh();
    expect(self.fleet.directory.summary().peers).toBe(0);
    // Each question names the asker, so that a peer knows whether it has met it.
    expect(asked).toEqual([SELF.instance, SELF.instance]);
  });

  it('resolves a DNS name again at each refresh, as pods come and go', async () => {
    const old = peer(OLD, serveChunk);
    const base = await old.base;
    let addresses = ['127.0.0.1'];
    const self = await instance([base], { lookup: () => Promise.resolve(addresses) });
    expect(self.fleet.directory.summary()).toEqual({ peers: 1, builds: 1 });
    addresses = [];
    await self.fleet.directory.refresh();
    expect(self.fleet.directory.summary()).toEqual({ peers: 0, builds: 0 });
    addresses = ['127.0.0.1'];
    await self.fleet.directory.refresh();
    expect((await rawRequest(self.base, CHUNK)).status).toBe(200);
  });

  it('asks again who the peers are when a peer asks who it is: a new instance is known at once', async () => {
    let identity: Identity | null = null;
    const late = await listen((req, res) => {
      if (req.url === IDENTITY_PATH && identity) return res.writeHead(200).end(JSON.stringify(identity));
      if (req.url === IDENTITY_PATH) return res.writeHead(503).end();
      serveChunk(req, res);
    });
    const self = await instance([late]);
    expect(self.fleet.directory.summary().peers).toBe(0);
    // The new instance starts, and asks this one who it is.
    identity = OLD;
    await rawRequest(self.base, IDENTITY_PATH, { headers: { [HOP_HEADER]: OLD.instance } });
    const deadline = Date.now() + 5000;
    while (self.fleet.directory.summary().peers === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect(self.fleet.directory.summary()).toEqual({ peers: 1, builds: 1 });
  });

  it('does not refresh when a peer it knows asks who it is: peers do not keep each other refreshing', async () => {
    let identityAsks = 0;
    const known = await listen((req, res) => {
      if (req.url === IDENTITY_PATH) identityAsks += 1;
      res.writeHead(200).end(JSON.stringify(OLD));
    });
    const self = await instance([known]);
    expect(identityAsks).toBe(1);
    // The known peer's own refreshes ask this instance, naming itself.
    for (let i = 0; i < 3; i += 1)
      await rawRequest(self.base, IDENTITY_PATH, { headers: { [HOP_HEADER]: OLD.instance } });
    await new Promise((resolve) => setTimeout(resolve, UNKNOWN_BUILD_REFRESH_MS + 300));
    expect(identityAsks).toBe(1);
    // An instance it has not met (a new pod) asking does.
    await rawRequest(self.base, IDENTITY_PATH, { headers: { [HOP_HEADER]: 'instanceNewcomer' } });
    await new Promise((resolve) => setTimeout(resolve, UNKNOWN_BUILD_REFRESH_MS + 300));
    expect(identityAsks).toBe(2);
  });

  it(`keeps a busy peer's build through ${FORGET_AFTER_UNANSWERED - 1} unanswered refreshes, and forgets it at the ${FORGET_AFTER_UNANSWERED}rd`, async () => {
    let silent = false;
    const busy = await listen((req, res) => {
      if (req.url === IDENTITY_PATH && silent) return res.writeHead(503).end();
      if (req.url === IDENTITY_PATH) return res.writeHead(200).end(JSON.stringify(OLD));
      serveChunk(req, res);
    });
    const self = await instance([busy]);
    silent = true;
    for (let i = 1; i < FORGET_AFTER_UNANSWERED; i += 1) await self.fleet.directory.refresh();
    // Still known: its files are still asked of it.
    expect(self.fleet.directory.summary()).toEqual({ peers: 1, builds: 1 });
    expect((await rawRequest(self.base, CHUNK)).status).toBe(200);
    await self.fleet.directory.refresh();
    expect(self.fleet.directory.summary()).toEqual({ peers: 0, builds: 0 });
    // One answer, and it is known again.
    silent = false;
    await self.fleet.directory.refresh();
    expect(self.fleet.directory.summary()).toEqual({ peers: 1, builds: 1 });
  });
});
