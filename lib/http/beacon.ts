// A page's beacon (navigator.sendBeacon, or the service worker's empty POST): a count a client
// reports, which the server cannot check. What keeps a stranger from moving it at will:
// - SECURITY: only this site's own pages may send one (Sec-Fetch-Site, else Origin against Host):
//   another site cannot make its visitors' browsers count for it;
// - a beacon carries no body: one that declares one is refused unread, and the connection closes;
// - each counter takes at most BEACONS_PER_WINDOW beacons per BEACON_WINDOW_MS in a process; past
//   that they are not counted (a client without a browser's headers is bounded this way);
// - every beacon ignored is counted (app_client_beacons_ignored_total{beacon,reason}) and said in
//   one `client.beacons_ignored` line per window at most, never one per request; the request log
//   skips beacons altogether (lib/server/observe-requests.ts), as each is a count in a metric.
// Hand-written rather than a rate-limiting library: one fixed window per counter, a few lines,
// where a library would bring keys per client that a stranger's addresses would only multiply.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../log/logger';
import { recordBeaconIgnored, type BeaconName, type BeaconIgnoredReason } from '../metrics/record';
import { crossSiteReason } from './cross-site';
import { sendPlain } from './plain-response';

export type { BeaconName, BeaconIgnoredReason } from '../metrics/record';

/** How long a counter's window is, and how often at most a summary line is written. */
export const BEACON_WINDOW_MS = 60_000;
/**
 * The most beacons one counter takes per window in one process: ten a second, far above what a
 * pod's visitors send (one per visitor back from an outage, one per page that lost a build file),
 * and all a stranger can add.
 */
export const BEACONS_PER_WINDOW = 600;

export interface BeaconOptions {
  perWindow?: number;
  windowMs?: number;
  now?: () => number;
}

/** Answers a beacon for `beacon`, calling `count` when it counts. Never throws. */
export type BeaconAnswer = (
  req: IncomingMessage,
  res: ServerResponse,
  beacon: BeaconName,
  count: () => void,
) => void;

/** Whether a request says it carries a body (a length above 0, or any transfer coding). */
function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** The beacons of one process: each counter's window, and what was ignored since the last line. */
export function createBeacons({
  perWindow = BEACONS_PER_WINDOW,
  windowMs = BEACON_WINDOW_MS,
  now = Date.now,
}: BeaconOptions = {}): BeaconAnswer {
  const windows = new Map<BeaconName, { start: number; taken: number }>();
  let ignored = new Map<string, number>();
  let summary: NodeJS.Timeout | null = null;

  function summarise(): void {
    summary = null;
    const counts = Object.fromEntries(ignored);
    ignored = new Map();
    log('warn', 'client.beacons_ignored', { windowSeconds: windowMs / 1000, ignored: counts });
  }

  function ignore(beacon: BeaconName, reason: BeaconIgnoredReason): void {
    recordBeaconIgnored(beacon, reason);
    const key = `${beacon}.${reason}`;
    ignored.set(key, (ignored.get(key) ?? 0) + 1);
    if (summary) return;
    summary = setTimeout(summarise, windowMs);
    summary.unref();
  }

  /** Takes one from the counter's window; false when it is spent. */
  function take(beacon: BeaconName): boolean {
    const at = now();
    const window = windows.get(beacon);
    if (!window || at - window.start >= windowMs) {
      windows.set(beacon, { start: at, taken: 1 });
      return true;
    }
    if (window.taken >= perWindow) return false;
    window.taken += 1;
    return true;
  }

  return (req, res, beacon, count) => {
    try {
      if (req.method !== 'POST') return sendPlain(res, 405, 'Only POST.', { Allow: 'POST' });
      if (crossSiteReason(req.headers)) {
        ignore(beacon, 'cross_site');
        return sendPlain(res, 403, "Only this site's own pages send this.");
      }
      if (declaresBody(req)) {
        ignore(beacon, 'body');
        // Answered at once, the body unread: Node closes the connection once this is sent.
        return sendPlain(res, 413, 'A beacon carries no body.', { Connection: 'close' });
      }
      if (!take(beacon)) {
        ignore(beacon, 'over_bound');
        return sendPlain(res, 429, 'Too many of these; this one was not counted.', {
          'Retry-After': String(Math.ceil(windowMs / 1000)),
        });
      }
      count();
      res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
    } catch {
      // A beacon is never worth an error: a response already ended, or a socket gone.
    }
  };
}

/** This process's beacons. */
export const answerBeacon: BeaconAnswer = createBeacons();
