// Who the peers are and which build each serves. A peer's build is what the peer itself says at
// IDENTITY_PATH (known, never guessed from a name); a peer that answers with this instance's own
// id is this instance (a headless Service's name resolves to every pod, this one included) and is
// never asked anything again. DNS names are resolved again at each refresh, as pods come and go.
import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import { isBuildId } from './names';
import type { PeerSource } from '../config/peer-list';
import { HOP_HEADER, IDENTITY_PATH } from './paths';

/** How often peers are resolved and asked who they are. */
export const REFRESH_MS = 5000;
/** A request that names a build no peer is known to serve refreshes at most this often. */
export const UNKNOWN_BUILD_REFRESH_MS = 1000;
/** Refreshes in a row a peer may leave unanswered before its build is forgotten (15 s). */
export const FORGET_AFTER_UNANSWERED = 3;
/** After a failed fetch a peer is left out for this long. */
export const PEER_BACKOFF_MS = 5000;
/** More is a lying peer: an identity is two short ids. */
const MAX_IDENTITY_BYTES = 1024;

export interface Identity {
  build: string;
  instance: string;
}

export interface Peer {
  base: string;
  identity: Identity | null;
  /** Refreshes in a row it did not answer (a busy or stopped peer). */
  unanswered: number;
  /** Left out of candidates until then (a failed fetch). */
  failedUntil: number;
  /** Fetches in flight to it (./forward.ts bounds them). */
  inFlight: number;
  agent: http.Agent;
}

export interface DirectoryOptions {
  sources: PeerSource[];
  self: Identity;
  timeoutMs: number;
  /** Fetches in flight per peer at most: the agent's sockets too. */
  maxInFlight: number;
  lookup?: (name: string) => Promise<string[]>;
  now?: () => number;
}

export interface Directory {
  /**
   * Peers that may have a file of `build`, or, for null, of any build but this one: one per build,
   * the least busy; `leftOut` counts such peers left out for now (failing, or at their limit).
   */
  candidates: (build: string | null) => { peers: Peer[]; leftOut: number };
  /** Whether some peer is known to serve `build`. */
  knows: (build: string) => boolean;
  /** Whether `instance` is a peer known by identity, or this instance itself. */
  knowsInstance: (instance: string) => boolean;
  /** Resolves and asks every peer again; one refresh at a time. */
  refresh: () => Promise<void>;
  /** A refresh, unless one ran in the last UNKNOWN_BUILD_REFRESH_MS: a stranger cannot make more. */
  refreshSoon: () => Promise<void>;
  /**
   * An instance this one does not know asked who it is: a peer that has just started. A refresh
   * after the one running, at most one per UNKNOWN_BUILD_REFRESH_MS, never dropped. (Only for an
   * unknown asker: known peers asking at every refresh would keep each other refreshing forever.)
   */
  introduced: () => void;
  /** Bumped when the set of (peer, build) pairs changes: what was missing may now be found. */
  generation: () => number;
  /** The base URLs of the peers known by identity (never this instance), whatever their build. */
  peerBases: () => string[];
  /** Peers known by identity, and the distinct builds of the others. */
  summary: () => { peers: number; builds: number };
  markFailed: (peer: Peer) => void;
  start: () => Promise<void>;
  stop: () => void;
}

async function resolveAll(name: string): Promise<string[]> {
  const answers = await dnsLookup(name, { all: true });
  return answers.map((answer) => answer.address);
}

function baseOf(address: string, port: number): string {
  return address.includes(':') ? `http://[${address}]:${port}` : `http://${address}:${port}`;
}

/**
 * GET IDENTITY_PATH of `base`, naming the asker (its instance id, in the hop header) so that the
 * peer knows whether it has met it; null for any answer that is not a well-formed identity in time.
 *
 * Asked with `fetch`, not `node:http`: this runs every REFRESH_MS for as long as the process lives,
 * and a `node:http` client request now and then, in a process whose every other message is a
 * server one, costs every request the server answers. Under `/api/health` load with a live peer,
 * `process.nextTick` alone took 82–120 ms of CPU in 8 s when peers were asked with `node:http`,
 * 16–18 ms with `fetch`, and 24–25 ms with no peer (bench/README.md). Most likely the client's
 * objects pass through the code `node:http` shares between client and server (its parser
 * callbacks, OutgoingMessage, the streams), and the JIT's code there, made for server objects
 * only, no longer fits. `fetch` has a client of its own (undici). The files fetched from peers in
 * a rolling update stay on `node:http`
 * (./forward.ts), which streams them to the visitor; that only happens while two builds serve.
 */
export async function askIdentity(base: string, timeoutMs: number, asker: string): Promise<Identity | null> {
  try {
    const res = await fetch(`${base}${IDENTITY_PATH}`, {
      headers: { [HOP_HEADER]: asker },
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      return null;
    }
    // A lying peer's body is read only up to MAX_IDENTITY_BYTES.
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_IDENTITY_BYTES) {
        await reader.cancel();
        return null;
      }
      chunks.push(value);
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Partial<Identity>;
    return isBuildId(body.build) && isBuildId(body.instance)
      ? { build: body.build, instance: body.instance }
      : null;
  } catch {
    // Refused, reset, timed out, or not JSON.
    return null;
  }
}

/**
 * The (peer, build) pairs, to tell whether the fleet changed since the last refresh. Unsorted: a
 * peer keeps its place in the map until it leaves, and its leaving is a change of its own.
 */
function fingerprintOf(peers: Map<string, Peer>): string {
  return JSON.stringify([...peers.values()].map((peer) => [peer.base, peer.identity?.build ?? null]));
}

export function createDirectory({
  sources,
  self,
  timeoutMs,
  maxInFlight,
  lookup = resolveAll,
  now = Date.now,
}: DirectoryOptions): Directory {
  const peers = new Map<string, Peer>();
  /** Bases that answered with this instance's id: never asked again. */
  const itself = new Set<string>();
  let running: Promise<void> | null = null;
  let lastRefresh = -Infinity;
  let generation = 0;
  let fingerprint = fingerprintOf(peers);
  let timer: NodeJS.Timeout | null = null;
  let introduction: NodeJS.Timeout | null = null;
  let stopped = false;

  const peerAt = (base: string): Peer => {
    let peer = peers.get(base);
    if (!peer) {
      peer = {
        base,
        identity: null,
        unanswered: 0,
        failedUntil: 0,
        inFlight: 0,
        agent: new http.Agent({
          keepAlive: true,
          maxSockets: maxInFlight,
          maxFreeSockets: 4,
          timeout: 60_000,
        }),
      };
      peers.set(base, peer);
    }
    return peer;
  };

  async function bases(): Promise<Set<string>> {
    const found = new Set<string>();
    await Promise.all(
      sources.map(async (source) => {
        if (source.kind === 'url') return found.add(source.base);
        try {
          for (const address of await lookup(source.name)) found.add(baseOf(address, source.port));
        } catch {
          // A name that does not resolve now (no pod ready yet) is tried again at the next refresh.
        }
        return undefined;
      }),
    );
    return found;
  }

  async function refreshOnce(): Promise<void> {
    lastRefresh = now();
    const current = await bases();
    for (const [base, peer] of peers) {
      if (!current.has(base)) {
        peer.agent.destroy();
        peers.delete(base);
      }
    }
    await Promise.all(
      [...current]
        .filter((base) => !itself.has(base))
        .map(async (base) => {
          const peer = peerAt(base);
          const identity = await askIdentity(base, timeoutMs, self.instance);
          if (identity?.instance === self.instance) {
            itself.add(base);
            peer.agent.destroy();
            peers.delete(base);
            return;
          }
          if (identity) {
            peer.identity = identity;
            peer.unanswered = 0;
            return;
          }
          // One slow answer from a busy peer must not make its build's files 404s: its build stays
          // known (a fetch that fails is a 503 with Retry-After) until it has missed
          // FORGET_AFTER_UNANSWERED refreshes, or its address leaves the DNS answer.
          peer.unanswered += 1;
          if (peer.unanswered >= FORGET_AFTER_UNANSWERED) peer.identity = null;
        }),
    );
    const next = fingerprintOf(peers);
    if (next !== fingerprint) {
      fingerprint = next;
      generation += 1;
    }
  }

  const refresh = (): Promise<void> => {
    running ??= refreshOnce().finally(() => {
      running = null;
    });
    return running;
  };

  const known = (): Peer[] => [...peers.values()].filter((peer) => peer.identity);

  return {
    candidates: (build) => {
      const at = now();
      const byBuild = new Map<string, Peer>();
      let leftOut = 0;
      for (const peer of known()) {
        const peerBuild = peer.identity!.build;
        if (build === null ? peerBuild === self.build : peerBuild !== build) continue;
        if (peer.failedUntil > at || peer.inFlight >= maxInFlight) {
          leftOut += 1;
          continue;
        }
        const chosen = byBuild.get(peerBuild);
        // Stryker disable next-line EqualityOperator: which of two equally busy peers wins is no promise.
        if (!chosen || peer.inFlight < chosen.inFlight) byBuild.set(peerBuild, peer);
      }
      return { peers: [...byBuild.values()], leftOut };
    },
    knows: (build) => known().some((peer) => peer.identity!.build === build),
    peerBases: () => known().map((peer) => peer.base),
    knowsInstance: (instance) =>
      instance === self.instance || known().some((peer) => peer.identity!.instance === instance),
    refresh,
    refreshSoon: () =>
      running ?? (now() - lastRefresh >= UNKNOWN_BUILD_REFRESH_MS ? refresh() : Promise.resolve()),
    introduced: () => {
      if (introduction || stopped) return;
      const wait = Math.max(0, lastRefresh + UNKNOWN_BUILD_REFRESH_MS - now());
      introduction = setTimeout(() => {
        introduction = null;
        // After a refresh under way, which may have asked the newcomer before it listened.
        void (running ?? Promise.resolve()).then(refresh);
      }, wait);
      introduction.unref();
    },
    generation: () => generation,
    summary: () => ({
      peers: known().length,
      builds: new Set(
        known()
          .map((peer) => peer.identity!.build)
          .filter((build) => build !== self.build),
      ).size,
    }),
    markFailed: (peer) => {
      peer.failedUntil = now() + PEER_BACKOFF_MS;
    },
    start: async () => {
      await refresh();
      timer = setInterval(() => void refresh(), REFRESH_MS);
      timer.unref();
    },
    stop: () => {
      stopped = true;
      if (timer) clearInterval(timer);
      if (introduction) clearTimeout(introduction);
      for (const peer of peers.values()) peer.agent.destroy();
    },
  };
}
