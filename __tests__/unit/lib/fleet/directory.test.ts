// The directory of peers on its own, against peers on loopback that only say who they are: which
// peer it offers for a build, when it asks again, and when it says the fleet changed.
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createDirectory,
  type Directory,
  type Identity,
  PEER_BACKOFF_MS,
  REFRESH_MS,
  UNKNOWN_BUILD_REFRESH_MS,
} from '@lib/fleet/directory';
import { IDENTITY_PATH } from '@lib/fleet/paths';
import { until } from '../../../support/until';

const SELF: Identity = { build: 'buildNew', instance: 'instanceSelf' };
const servers: Server[] = [];
const directories: Directory[] = [];

/** A peer whose answer to "who are you" the test can change; counts how often it is asked. */
async function peer(identity: Identity | string) {
  const state = { identity, asked: 0 };
  const server = http.createServer((req, res) => {
    if (req.url !== IDENTITY_PATH) return res.writeHead(404).end();
    state.asked += 1;
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(typeof state.identity === 'string' ? state.identity : JSON.stringify(state.identity));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

function directory(bases: string[], clock = { ms: 1_000_000 }, maxInFlight = 2): Directory {
  const made = createDirectory({
    sources: bases.map((base) => ({ kind: 'url' as const, base })),
    self: SELF,
    timeoutMs: 1000,
    maxInFlight,
    now: () => clock.ms,
  });
  directories.push(made);
  return made;
}

afterEach(async () => {
  for (const made of directories.splice(0)) made.stop();
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    }),
  );
});

describe('which peer it offers', () => {
  it('for a build, only peers of that build; for null, one peer of each other build, never its own', async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const older = await peer({ build: 'buildOlder', instance: 'b' });
    const same = await peer({ build: SELF.build, instance: 'c' });
    const dir = directory([old.base, older.base, same.base]);
    await dir.refresh();
    expect(dir.candidates('buildOld').peers.map((p) => p.base)).toEqual([old.base]);
    expect(
      dir
        .candidates(null)
        .peers.map((p) => p.base)
        .sort(),
    ).toEqual([old.base, older.base].sort());
    expect(dir.candidates('buildGone')).toEqual({ peers: [], leftOut: 0 });
  });

  it('of two peers of one build, the one with fewer fetches in flight', async () => {
    const one = await peer({ build: 'buildOld', instance: 'a' });
    const two = await peer({ build: 'buildOld', instance: 'b' });
    const dir = directory([one.base, two.base], undefined, 5);
    await dir.refresh();
    const [first] = dir.candidates('buildOld').peers;
    first!.inFlight = 3;
    const [chosen] = dir.candidates('buildOld').peers;
    expect(chosen!.base).not.toBe(first!.base);
    chosen!.inFlight = 4;
    expect(dir.candidates('buildOld').peers[0]!.base).toBe(first!.base);
  });

  it(`leaves out a peer at its limit of fetches, and a failed one for ${PEER_BACKOFF_MS / 1000} s`, async () => {
    // docs/fleet.md's 5 s, written out: a changed constant must change this test.
    expect(PEER_BACKOFF_MS).toBe(5000);
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const clock = { ms: 1_000_000 };
    const dir = directory([old.base], clock, 2);
    await dir.refresh();
    const [found] = dir.candidates('buildOld').peers;
    found!.inFlight = 2;
    expect(dir.candidates('buildOld')).toEqual({ peers: [], leftOut: 1 });
    found!.inFlight = 1;
    expect(dir.candidates('buildOld').peers).toHaveLength(1);
    dir.markFailed(found!);
    clock.ms += PEER_BACKOFF_MS - 1;
    expect(dir.candidates('buildOld')).toEqual({ peers: [], leftOut: 1 });
    clock.ms += 1;
    expect(dir.candidates('buildOld').peers).toHaveLength(1);
  });

  it('knows the builds and instances its peers said, and its own instance', async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const dir = directory([old.base]);
    await dir.refresh();
    expect([dir.knows('buildOld'), dir.knows('buildOther')]).toEqual([true, false]);
    expect([dir.knowsInstance('a'), dir.knowsInstance(SELF.instance), dir.knowsInstance('z')]).toEqual([
      true,
      true,
      false,
    ]);
    expect(dir.summary()).toEqual({ peers: 1, builds: 1 });
  });

  it('knows a build when one of several peers serves it', async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const other = await peer({ build: 'buildOther', instance: 'b' });
    const dir = directory([old.base, other.base]);
    await dir.refresh();
    expect([dir.knows('buildOld'), dir.knows('buildOther')]).toEqual([true, true]);
    expect(dir.summary()).toEqual({ peers: 2, builds: 2 });
  });

  it('reaches a peer a name resolves to on IPv6', async () => {
    const server = http.createServer((_, res) =>
      res.writeHead(200).end(JSON.stringify({ build: 'buildV6', instance: 'v6' })),
    );
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '::1', resolve));
    const made = createDirectory({
      sources: [{ kind: 'dns', name: 'peers.test', port: (server.address() as AddressInfo).port }],
      self: SELF,
      timeoutMs: 1000,
      maxInFlight: 2,
      lookup: () => Promise.resolve(['::1']),
    });
    directories.push(made);
    await made.refresh();
    expect(made.candidates('buildV6').peers.map((found) => found.base)).toEqual([
      `http://[::1]:${(server.address() as AddressInfo).port}`,
    ]);
  });

  it('counts its own build among peers, not among the other builds', async () => {
    const same = await peer({ build: SELF.build, instance: 'c' });
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const alsoOld = await peer({ build: 'buildOld', instance: 'b' });
    const dir = directory([same.base, old.base, alsoOld.base]);
    await dir.refresh();
    expect(dir.summary()).toEqual({ peers: 3, builds: 1 });
  });

  it('names every peer known by identity, of any build, never itself nor one that did not answer', async () => {
    const same = await peer({ build: SELF.build, instance: 'c' });
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const itself = await peer(SELF);
    const silent = await peer('not json');
    const dir = directory([same.base, old.base, itself.base, silent.base]);
    expect(dir.peerBases()).toEqual([]);
    await dir.refresh();
    expect(dir.peerBases().sort()).toEqual([same.base, old.base].sort());
  });
});

describe('what it takes for an identity', () => {
  it(`a body of up to 1,024 bytes, and no more`, async () => {
    const json = JSON.stringify({ build: 'buildOld', instance: 'a' });
    const exactly = await peer(json + ' '.repeat(1024 - json.length));
    const over = await peer({ build: 'buildOlder', instance: 'b' });
    over.identity = JSON.stringify(over.identity) + ' '.repeat(1025 - JSON.stringify(over.identity).length);
    const dir = directory([exactly.base, over.base]);
    await dir.refresh();
    expect([dir.knows('buildOld'), dir.knows('buildOlder')]).toEqual([true, false]);
  });
});

describe('when it says the fleet changed', () => {
  it('not for a refresh that finds no peer, nor for one that finds the same peers', async () => {
    const empty = directory([]);
    await empty.refresh();
    expect(empty.generation()).toBe(0);

    const old = await peer({ build: 'buildOld', instance: 'a' });
    const dir = directory([old.base]);
    await dir.refresh();
    expect(dir.generation()).toBe(1);
    await dir.refresh();
    expect(dir.generation()).toBe(1);
  });

  it('when a peer comes back with another build', async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const dir = directory([old.base]);
    await dir.refresh();
    old.identity = { build: 'buildOther', instance: 'a2' };
    await dir.refresh();
    expect(dir.generation()).toBe(2);
    expect(dir.knows('buildOther')).toBe(true);
  });
});

describe('when it asks again', () => {
  it(`every ${REFRESH_MS / 1000} s once started, and not once stopped`, async () => {
    expect(REFRESH_MS).toBe(5000);
    // Only the refresh's interval on the test's clock: the questions themselves run in real time.
    jest.useFakeTimers({
      doNotFake: [
        'Date',
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setTimeout',
        'clearTimeout',
      ],
    });
    try {
      const old = await peer({ build: 'buildOld', instance: 'a' });
      const dir = directory([old.base]);
      await dir.start();
      expect(old.asked).toBe(1);
      jest.advanceTimersByTime(REFRESH_MS - 1);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(old.asked).toBe(1);
      jest.advanceTimersByTime(1);
      await until(() => old.asked === 2);
      expect(old.asked).toBe(2);
      dir.stop();
      jest.advanceTimersByTime(REFRESH_MS);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(old.asked).toBe(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it(`for a build it does not know: at once the first time, then at most once per ${UNKNOWN_BUILD_REFRESH_MS} ms`, async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const clock = { ms: 1_000_000 };
    const dir = directory([old.base], clock);
    await dir.refreshSoon();
    expect(old.asked).toBe(1);
    clock.ms += UNKNOWN_BUILD_REFRESH_MS - 1;
    await dir.refreshSoon();
    expect(old.asked).toBe(1);
    clock.ms += 1;
    await dir.refreshSoon();
    expect(old.asked).toBe(2);
  });

  it(`for a newcomer: once, ${UNKNOWN_BUILD_REFRESH_MS} ms after the last refresh, however often it is told`, async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const clock = { ms: 1_000_000 };
    const dir = directory([old.base], clock);
    await dir.refresh();
    clock.ms += UNKNOWN_BUILD_REFRESH_MS / 2;
    const toldAt = Date.now();
    dir.introduced();
    dir.introduced();
    await until(() => old.asked >= 2);
    expect(old.asked).toBe(2);
    // Half the interval was left (the directory's clock stands still meanwhile).
    expect(Date.now() - toldAt).toBeGreaterThanOrEqual(UNKNOWN_BUILD_REFRESH_MS / 2 - 50);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(old.asked).toBe(2);
  });

  it('for a newcomer, not once stopped', async () => {
    const old = await peer({ build: 'buildOld', instance: 'a' });
    const dir = directory([old.base]);
    await dir.refresh();
    dir.stop();
    dir.introduced();
    await new Promise((resolve) => setTimeout(resolve, UNKNOWN_BUILD_REFRESH_MS + 200));
    expect(old.asked).toBe(1);
  });
});
