// A page's beacon (navigator.sendBeacon, or the service worker's empty POST): a count a client
// reports, which the server cannot check. What keeps a stranger from moving it at will:
// - SECURITY: only a request that says it comes from this site's own page counts
//   (`Sec-Fetch-Site: same-origin`, else an Origin that is the Host's origin, ./cross-site.ts):
//   another site cannot make its visitors' browsers count for it, and a request with neither
//   header (a bare `curl`, what no browser of ours sends) is refused 403 without taking from any
//   window, so it cannot spend the visitors' budget;
// - a beacon carries no body: one that declares one is refused unread, and the connection closes;
// - each counter (the lost file, each screen apart: BeaconCounter) takes at most
//   BEACONS_PER_WINDOW beacons per BEACON_WINDOW_MS in a process; past that they are not counted;
// - every beacon ignored is counted (app_client_beacons_ignored_total{beacon,reason}) and said in
//   one `client.beacons_ignored` line per window at most (with the counters whose budget was
//   spent), never one per request; the request log skips beacons altogether
//   (lib/server/observe-requests.ts), as each is a count in a metric.
// What a forger can still do: a client that is no browser can write `Sec-Fetch-Site: same-origin`
// itself (no longer a bare `curl`). It can then spend one counter's window per process, each
// counter alone (spending the offline screen's leaves the unavailable screen's and the lost
// file's whole), and what it spends reads as a budget spent, not as that many visitors:
// app_client_beacon_budget_spent_total{counter} once per window, the beacons refused after it as
// app_client_beacons_ignored_total{reason="budget_spent"}.
// Hand-written rather than a rate-limiting library: one fixed window per counter, a few lines,
// where a library would bring keys per client that a stranger's addresses would only multiply.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { log } from '../log/logger';
import {
  recordBeaconBudgetSpent,
  recordBeaconIgnored,
  type BeaconCounter,
  type BeaconIgnoredReason,
  type BeaconName,
} from '../metrics/record';
import { sameOriginReason } from './cross-site';
import { sendPlain } from './plain-response';

export type { BeaconCounter, BeaconName, BeaconIgnoredReason } from '../metrics/record';

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

/** Answers a beacon for `counter`, calling `count` when it counts. Never throws. */
export type BeaconAnswer = (
  req: IncomingMessage,
  res: ServerResponse,
  counter: BeaconCounter,
  count: () => void,
) => void;

/** The beacon a counter's are, as app_client_beacons_ignored_total labels it. */
const beaconOf = (counter: BeaconCounter): BeaconName =>
  counter === 'lost_file' ? 'lost_file' : 'screen_seen';

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
  // Keyed by counter, not by beacon: a counter spent must leave every other whole.
  const windows = new Map<BeaconCounter, { start: number; taken: number; spent: boolean }>();
  let ignored = new Map<string, number>();
  let spent = new Set<BeaconCounter>();
  let summary: NodeJS.Timeout | null = null;

  function summarise(): void {
    summary = null;
    const counts = Object.fromEntries(ignored);
    const budgetSpent = [...spent];
    ignored = new Map();
    spent = new Set();
    log('warn', 'client.beacons_ignored', { windowSeconds: windowMs / 1000, ignored: counts, budgetSpent });
  }

  function ignore(counter: BeaconCounter, reason: BeaconIgnoredReason): void {
    const beacon = beaconOf(counter);
    recordBeaconIgnored(beacon, reason);
    const key = `${beacon}.${reason}`;
    ignored.set(key, (ignored.get(key) ?? 0) + 1);
    if (summary) return;
    summary = setTimeout(summarise, windowMs);
    summary.unref();
  }

  /** Takes one from the counter's window; false when it is spent (said once per window). */
  function take(counter: BeaconCounter): boolean {
    const at = now();
    const window = windows.get(counter);
    if (!window || at - window.start >= windowMs) {
      windows.set(counter, { start: at, taken: 1, spent: false });
      return true;
    }
    if (window.taken < perWindow) {
      window.taken += 1;
      return true;
    }
    // Said once per window, not per beacon refused: what one source spends reads as one spending.
    if (!window.spent) {
      window.spent = true;
      recordBeaconBudgetSpent(counter);
      spent.add(counter);
    }
    return false;
  }

  return (req, res, counter, count) => {
    try {
      if (req.method !== 'POST') return sendPlain(res, 405, 'Only POST.', { Allow: 'POST' });
      // Before the window: a refused beacon takes nothing from it.
      const notOurs = sameOriginReason(req.headers);
      if (notOurs) {
        ignore(counter, notOurs);
        return sendPlain(res, 403, "Only this site's own pages send this.");
      }
      if (declaresBody(req)) {
        ignore(counter, 'body');
        // Answered at once, the body unread: Node closes the connection once this is sent.
        return sendPlain(res, 413, 'A beacon carries no body.', { Connection: 'close' });
      }
      if (!take(counter)) {
        ignore(counter, 'budget_spent');
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
