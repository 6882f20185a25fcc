// How code records the shell's counters without importing prom-client: through the process slot
// ./registry.ts fills. Next bundles the server reporter with its own copy of every module, and a
// registry made there would be another, empty one; the slot is one per process. With no registry
// (MANAGEMENT_PORT=0, tests) recording does nothing.
import type { OutageKind } from '../screens/types';
import type { Registry } from 'prom-client';
import { processSlot } from '../process/slots';

/**
 * forwarded: the ingest answered (reason: its status class); queued: it waits for the ingest in the
 * report queue (202); refused: we answered 4xx/5xx ourselves.
 */
export type TunnelOutcome = 'forwarded' | 'queued' | 'refused' | 'upstream_failed' | 'abandoned';
/**
 * sent: the ingest took it; queued: it waits for the ingest in the report queue; dropped: the SDK
 * or the ingest did not take it; logged: no DSN, a log line.
 */
export type ReportOutcome = 'sent' | 'queued' | 'dropped' | 'logged';

/**
 * Another build's file (lib/fleet/): found at a peer; cut (a peer's body was not whole, the visitor's
 * connection closed); missing everywhere (Next's 404); remembered (a recent miss, not asked again);
 * failed (a peer that may have it failed or was busy: 503, try again); gone (the visitor left before
 * any answer came).
 */
export type FleetOutcome = 'found' | 'cut' | 'missing' | 'remembered' | 'failed' | 'gone';

/** The beacons pages send (lib/http/beacon.ts): a page's lost build file, a screen seen. */
export type BeaconName = 'lost_file' | 'screen_seen';
/** What a beacon counts, each with its own window (lib/http/beacon.ts): each screen apart. */
export type BeaconCounter = 'lost_file' | `screen_seen:${OutageKind}`;
export const BEACON_COUNTERS: readonly BeaconCounter[] = [
  'lost_file',
  'screen_seen:offline',
  'screen_seen:unavailable',
];
/**
 * Why a beacon was not counted: another site's page (cross_site); neither Sec-Fetch-Site nor Origin,
 * a client that is no browser (no_origin); a body; its counter's budget for the window spent
 * already (budget_spent).
 */
export type BeaconIgnoredReason = 'cross_site' | 'no_origin' | 'body' | 'budget_spent';

export interface Recorder {
  tunnel: (outcome: TunnelOutcome, reason: string) => void;
  report: (outcome: ReportOutcome, reason: string) => void;
  fleet: (kind: 'static' | 'data', outcome: FleetOutcome) => void;
  /** A page reloaded because a build file was gone everywhere (its beacon, lib/fleet/recovery.ts). */
  lostFileReload: () => void;
  /** A visitor saw the offline or unavailable screen, and is back (lib/service-worker/serve.ts). */
  outageScreen: (screen: OutageKind) => void;
  /** A beacon not counted, and why (lib/http/beacon.ts). */
  beaconIgnored: (beacon: BeaconName, reason: BeaconIgnoredReason) => void;
  /** A counter's budget for its window spent: once per window, however many beacons follow. */
  beaconBudgetSpent: (counter: BeaconCounter) => void;
  /** A request's own "sampled" decision, honoured or not (lib/server/trace-budget.ts). */
  inheritedSampled: (outcome: InheritedSampledOutcome) => void;
  /** A server transaction: sent, or dropped and why. */
  transaction: (outcome: TransactionOutcome, reason: string) => void;
  /**
   * The report queue (lib/reporting/queue/): an envelope queued or sent from it (by source), an
   * attempt that failed and will be retried (by reason), one dropped unsent (by source and reason),
   * one handed to or taken from a peer (by source and direction), `amount` left waiting at exit.
   */
  reportQueue: (event: QueueEvent, labels: QueueLabels, amount?: number) => void;
  /**
   * The page cache (lib/page-cache/): a read answered by a layer (label: memory, store, disk, build,
   * none), a write kept by one (store, disk, memory), an entry dropped for a peer's write (key, tags);
   * the store: a command that failed or timed out (get, set), a command's seconds.
   */
  pageCache: (event: PageCacheEvent, amount: number, label: string) => void;
}

export type PageCacheEvent = 'read' | 'write' | 'invalidated' | 'store_error' | 'store_seconds';
/** Which layer answered a read of the page cache: none is a miss (the page is rendered). */
export type PageCacheSource = 'memory' | 'store' | 'disk' | 'build' | 'none';

export type QueueEvent = 'queued' | 'sent' | 'retried' | 'dropped' | 'handed_over' | 'left_at_exit';
export type QueueLabels = { source?: string; reason?: string; direction?: 'in' | 'out' };

/** honoured: within the budget; over_budget: sampled by the rate instead, like any request. */
export type InheritedSampledOutcome = 'honoured' | 'over_budget';
/** sent: the ingest took it; queued: it waits in the report queue; dropped: the SDK, the queue or the ingest did not (reason says which). */
export type TransactionOutcome = 'sent' | 'queued' | 'dropped';

// Stryker disable next-line StringLiteral: any name no other slot of the app uses works, and every copy of this module uses the same one
export const recorderSlot = processSlot<Recorder>('metricsRecorder');

/** The process's registry, for metrics of a product's own (./registry.ts writes it). */
export const registrySlot = processSlot<Registry>('metricsRegistry');

/**
 * A metric of the product's own, in the process's one registry, so /metrics serves it: made by
 * `create` the first time any copy of the calling module asks (each of Next's bundles has its own
 * copy, and a second registration of one name would throw), the same metric every time after.
 * Undefined with metrics off (MANAGEMENT_PORT=0, unit tests): record with `?.`.
 *
 *   const placed = productMetric('orders_placed_total', (registers) =>
 *     new Counter({ name: 'orders_placed_total', help: 'Orders placed.', registers }));
 *   placed?.inc();
 */
export function productMetric<T>(name: string, create: (registers: [Registry]) => T): T | undefined {
  const registry = registrySlot.read();
  if (!registry) return undefined;
  return (registry.getSingleMetric(name) as T | undefined) ?? create([registry]);
}

/** Counts one tunnel request by outcome; `reason` is one of a fixed set of words. Never throws. */
export function recordTunnel(outcome: TunnelOutcome, reason: string): void {
  try {
    recorderSlot.read()?.tunnel(outcome, reason);
  } catch {
    // A metric must never become a failure of what it counts.
  }
}

/** Counts one server-side error report by outcome. Never throws. */
export function recordReport(outcome: ReportOutcome, reason = ''): void {
  try {
    recorderSlot.read()?.report(outcome, reason);
  } catch {
    // As above.
  }
}

/** Counts one request for another build's file by outcome. Never throws. */
export function recordFleet(kind: 'static' | 'data', outcome: FleetOutcome): void {
  try {
    recorderSlot.read()?.fleet(kind, outcome);
  } catch {
    // As above.
  }
}

/** Counts one page that reloaded for a lost build file. Never throws. */
export function recordLostFileReload(): void {
  try {
    recorderSlot.read()?.lostFileReload();
  } catch {
    // As above.
  }
}

/** Counts one visitor who saw the offline or unavailable screen. Never throws. */
export function recordOutageScreen(screen: OutageKind): void {
  try {
    recorderSlot.read()?.outageScreen(screen);
  } catch {
    // As above.
  }
}

/** Counts one beacon not counted. Never throws. */
export function recordBeaconIgnored(beacon: BeaconName, reason: BeaconIgnoredReason): void {
  try {
    recorderSlot.read()?.beaconIgnored(beacon, reason);
  } catch {
    // As above.
  }
}

/** Counts one window whose budget a counter spent. Never throws. */
export function recordBeaconBudgetSpent(counter: BeaconCounter): void {
  try {
    recorderSlot.read()?.beaconBudgetSpent(counter);
  } catch {
    // As above.
  }
}

/** `2xx`, `4xx`… for an ingest's answer, and `429` on its own: rate limiting is worth its own line. */
export function statusClass(status: number | undefined): string {
  if (status === undefined || !Number.isInteger(status) || status < 100 || status > 599) return 'none';
  return status === 429 ? '429' : `${Math.floor(status / 100)}xx`;
}

/** Counts one request whose `sentry-trace` said "sampled". Never throws. */
export function recordInheritedSampled(outcome: InheritedSampledOutcome): void {
  try {
    recorderSlot.read()?.inheritedSampled(outcome);
  } catch {
    // As above.
  }
}

/** Counts one server transaction by outcome. Never throws. */
export function recordTransaction(outcome: TransactionOutcome, reason = ''): void {
  try {
    recorderSlot.read()?.transaction(outcome, reason);
  } catch {
    // As above.
  }
}

/** Counts one event of the report queue. Never throws. */
export function recordQueue(event: QueueEvent, labels: QueueLabels, amount = 1): void {
  try {
    recorderSlot.read()?.reportQueue(event, labels, amount);
  } catch {
    // As above.
  }
}

/** Counts one event of the page cache. Never throws. */
export function recordPageCache(event: PageCacheEvent, amount: number, label: string): void {
  try {
    recorderSlot.read()?.pageCache(event, amount, label);
  } catch {
    // As above.
  }
}
