// The fleet's stage of the server pipeline: a request for a build file this instance does not
// have (another build's chunk, build manifest or page data) is answered by a peer that has it,
// one hop only. How a rolling update goes, and every bound below: docs/fleet.md.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendPlain } from '../http/plain-response';
import { log } from '../log/logger';
import { recordFleet, type FleetOutcome } from '../metrics/record';
import { createDirectory, type Directory, type Identity } from './directory';
import { HOP_HEADER, IDENTITY_PATH } from './paths';
import { fetchFromPeer } from './forward';
import type { PeerSource } from '../config/peer-list';
import { namedDeployment } from './deployment';
import { isBuildId, STATIC_PREFIX, wantedFile, withoutPrefix, type Wanted } from './names';

/** Larger than any file Next writes (its own warning for a page's data is at 128 KiB). */
export const MAX_FILE_BYTES = 16 * 1024 * 1024;
/** Fetches in flight to one peer at most; past it the peer is busy (503, try later). */
export const MAX_IN_FLIGHT_PER_PEER = 32;
/** Names no peer had, remembered so a stranger's repeated misses cost one look-up each. */
export const MISSES_KEPT = 4096;
export const MISS_KEPT_MS = 30_000;
/** Other builds asked for one file without a build in its name (there are two in a rolling update). */
export const MAX_BUILDS_ASKED = 2;

export interface FleetOptions {
  sources: PeerSource[];
  /** `build`: the name the fleet knows this build by (./deployment.ts `fleetBuildName`). */
  self: Identity;
  /** Next's build id, when the fleet knows the build by another name (its deployment id). */
  buildId?: string;
  /** The prefixes Next serves build files under (./names.ts `servedPrefixes`). */
  prefixes?: readonly string[];
  /** This build's files under static/ (./own-files.ts). */
  ownFiles: ReadonlySet<string>;
  timeoutMs: number;
  directory?: Directory;
  now?: () => number;
}

export interface Fleet {
  /**
   * Takes the request when it is the fleet's: the identity path, or another build's file asked
   * with GET or HEAD by a visitor (never by a peer). Otherwise false at once, and `toNext` is not
   * called; when taken, `toNext` is called if Next should answer after all (a miss: Next's 404).
   */
  take: (req: IncomingMessage, res: ServerResponse, pathname: string, toNext: () => void) => boolean;
  directory: Directory;
  start: () => Promise<void>;
  stop: () => void;
}

export function createFleet({
  sources,
  self,
  buildId = self.build,
  // Stryker disable next-line ArrayDeclaration: every path the pipeline gives starts with '/' (lib/http/request-target.ts), which no prefix without one matches: as none.
  prefixes = [],
  ownFiles,
  timeoutMs,
  directory,
  now = Date.now,
}: FleetOptions): Fleet {
  const peers =
    directory ?? createDirectory({ sources, self, timeoutMs, maxInFlight: MAX_IN_FLIGHT_PER_PEER, now });
  const identityBody = JSON.stringify(self);
  /** key → when it is forgotten; emptied when the fleet changes (a new build may have it). */
  const misses = new Map<string, number>();
  let missesOf = peers.generation();

  const remembered = (key: string): boolean => {
    if (missesOf !== peers.generation()) {
      misses.clear();
      missesOf = peers.generation();
    }
    const until = misses.get(key);
    if (until === undefined) return false;
    if (until > now()) return true;
    misses.delete(key);
    return false;
  };
  const remember = (key: string) => {
    if (misses.size >= MISSES_KEPT) misses.delete(misses.keys().next().value!);
    misses.set(key, now() + MISS_KEPT_MS);
  };

  async function ask(
    req: IncomingMessage,
    res: ServerResponse,
    wanted: Wanted,
    named: string | null,
    toNext: () => void,
  ) {
    const outcome = (result: FleetOutcome) => recordFleet(wanted.kind, result);
    // A static file's name is whole without its build (a build's own files carry it in their name),
    // unless a deployment id names the build: every deploymentId build names its manifests alike.
    const key = wanted.kind === 'static' ? (named === null ? wanted.file : `${named}:${wanted.file}`) : null;
    if (key && remembered(key)) {
      outcome('remembered');
      return toNext();
    }
    const deadline = now() + timeoutMs;
    // A build no peer is known to serve may be one that started since the last refresh.
    if (wanted.build && !peers.knows(wanted.build)) await peers.refreshSoon();
    const { peers: asked, leftOut } = peers.candidates(wanted.build);
    // A peer that may have it is failing or busy: try again soon, and never cache this answer.
    let failed = leftOut > 0 && asked.length === 0;
    for (const peer of asked.slice(0, MAX_BUILDS_ASKED)) {
      const left = deadline - now();
      if (left <= 0 || res.destroyed) break;
      const target = req.url as string; // (a server's request always has one)
      // (A static file is asked without its query: the peer chosen is the build the `dpl` named.)
      const result = await fetchFromPeer({
        peer,
        target: wanted.kind === 'static' ? target.split('?', 1)[0]! : target,
        kind: wanted.kind,
        req,
        res,
        timeoutMs: left,
        maxBytes: MAX_FILE_BYTES,
        onFailed: (why) => {
          // One line per peer per back-off, whatever the number of visitors it failed.
          // Stryker disable next-line EqualityOperator: which side of the back-off's last millisecond logs is no promise.
          if (peer.failedUntil <= now())
            log('warn', 'fleet.peer_failed', { peer: peer.base, build: peer.identity?.build, why });
          peers.markFailed(peer);
        },
      });
      if (result === 'found' || result === 'cut' || result === 'gone') return outcome(result);
      if (result === 'failed') failed = true;
    }
    if (failed) {
      outcome('failed');
      return sendPlain(res, 503, 'The file could not be fetched. Try again.', { 'Retry-After': '1' });
    }
    if (key) remember(key);
    outcome('missing');
    return toNext();
  }

  return {
    directory: peers,
    take: (req, res, pathname, toNext) => {
      if (pathname === IDENTITY_PATH) {
        if (req.method !== 'GET' && req.method !== 'HEAD') return false;
        // A peer this instance does not know yet asking: it has just started. (At most one refresh a
        // second, whatever ids strangers send.)
        const asker = req.headers[HOP_HEADER];
        if (isBuildId(asker) && !peers.knowsInstance(asker)) peers.introduced();
        res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
        res.end(identityBody); // to HEAD, Node writes the headers alone
        return true;
      }
      const local = withoutPrefix(pathname, prefixes);
      const url = req.url as string; // (a server's request always has one)
      // This build's own files (and carried ones): one set look-up, then Next; unless the request
      // names a deployment, which may be another build's manifest under the same name (below).
      const own = local.startsWith(STATIC_PREFIX) && ownFiles.has(local.slice(STATIC_PREFIX.length));
      // Stryker disable next-line ConditionalExpression,BooleanLiteral,StringLiteral,MethodExpression: a cost only; the decisions below answer such a request the same.
      if (own && !url.includes('dpl=')) return false;
      // One hop: what a peer asks is answered from this instance's own files, or not at all.
      if (req.headers[HOP_HEADER] !== undefined) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') return false;
      const wanted = wantedFile(local);
      // An own chunk is the same file in every build that has it: its name is its content's hash.
      if (!wanted || (own && wanted.build === null)) return false;
      const named = namedDeployment(wanted.kind, url, req.headers);
      const build = named ?? wanted.build;
      // This build's own data or manifest, which Next answers: by the deployment the request names,
      // or without one by Next's build id in its path.
      if (build === self.build || (named === null && wanted.build === buildId)) return false;
      // (Never null for data: a data path names a build.)
      ask(req, res, { ...wanted, build } as Wanted, named, toNext).catch(() => {
        // Nothing above throws on purpose; if something does, the visitor still gets an answer.
        if (!res.headersSent) sendPlain(res, 503, 'The file could not be fetched. Try again.');
        else res.destroy();
      });
      return true;
    },
    start: () => peers.start(),
    stop: () => peers.stop(),
  };
}
