// The process's one Prometheus registry (prom-client): Node's process metrics, the request
// histogram, and the shell's own. Made by the server at start when the management listener is on
// (lib/server/start.ts); served by that listener's /metrics, never on the public port. Code that
// Next bundles (the server reporter) records through ./record.ts, which needs no prom-client.
// docs/metrics.md lists every metric and its labels.
import type { OutageKind } from '../screens/types';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Phase } from '../lifecycle/state';
import {
  BEACON_COUNTERS,
  type BeaconCounter,
  type BeaconIgnoredReason,
  type BeaconName,
  type FleetOutcome,
  recorderSlot,
  registrySlot,
  type InheritedSampledOutcome,
  type PageCacheEvent,
  type QueueEvent,
  type QueueLabels,
  type ReportOutcome,
  type TransactionOutcome,
  type TunnelOutcome,
} from './record';

/** OpenTelemetry's advice for http.server.request.duration, in seconds: 5 ms to 10 s. */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

const PHASES: readonly Phase[] = ['starting', 'ready', 'draining', 'closed'];
/** A health report's statuses, best to worst (lib/health/types.ts `HealthStatus`). */
const STATUSES = ['pass', 'warn', 'fail'] as const;
type HealthStatus = (typeof STATUSES)[number];

/**
 * What the registry reads of a readiness report (lib/health/types.ts `HealthReport`, which has this
 * shape): said here, so metrics, which every room records into, imports none of them.
 */
export interface HealthReading {
  status: HealthStatus;
  checks: Record<string, readonly { status: HealthStatus }[]>;
}

/** What the registry reads of the report queue (lib/reporting/queue/queue.ts `QueueStats`). */
export interface QueueReading {
  envelopes: Record<string, number>;
  bytes: Record<string, number>;
  /** The oldest waiting envelope's age, 0 when none waits. */
  oldestAgeSeconds: number;
  /** Bytes of envelopes held in memory: none with a folder. */
  memoryBytes: number;
}

/** The worst of some statuses ('pass' for none). */
const worstOf = (statuses: readonly { status: HealthStatus }[]): HealthStatus =>
  STATUSES[Math.max(0, ...statuses.map(({ status }) => STATUSES.indexOf(status)))]!;

/** Sets a state set: 1 under `key` for the current state, 0 for the others, beside `labels`. */
function setStates(
  gauge: Gauge<string>,
  key: string,
  states: readonly string[],
  current: string,
  labels: Record<string, string> = {},
): void {
  for (const state of states) gauge.set({ ...labels, [key]: state }, state === current ? 1 : 0);
}

export interface MetricsSources {
  phase: () => Phase;
  /** Requests in flight right now. */
  inFlight: () => number;
  version: string;
  release: string;
  /** Peers known by identity and the builds they serve other than this one (lib/fleet/), if any. */
  fleet?: () => { peers: number; builds: number };
  /** What waits for the ingest (lib/reporting/queue/), with a DSN. */
  reportQueue?: () => QueueReading;
  /** Whether the page cache's store answers (lib/page-cache/store.ts), with PAGE_CACHE_URL. */
  pageCacheStore?: () => boolean;
}

export interface Metrics {
  registry: Registry;
  /** Labels: http_request_method, http_route, http_response_status_code. */
  requestDuration: Histogram<'http_request_method' | 'http_route' | 'http_response_status_code'>;
  /** The last readiness report the listener decided: its status and each check's. */
  observeHealth: (report: HealthReading) => void;
  /** The registry as Prometheus text, and its content type. */
  render: () => Promise<{ contentType: string; text: string }>;
}

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const requestDuration = new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'Duration of HTTP server requests, from the request to the end of the answer.',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });

  new Gauge({
    name: 'http_server_active_requests',
    help: 'HTTP server requests in flight.',
    registers: [registry],
    collect() {
      this.set(sources.inFlight());
    },
  });

  new Gauge({
    name: 'app_build_info',
    help: 'The build this process runs: always 1, labelled with its version and release.',
    labelNames: ['version', 'release'] as const,
    registers: [registry],
  }).set({ version: sources.version, release: sources.release }, 1);

  new Gauge({
    name: 'app_lifecycle_phase',
    help: 'The process lifecycle phase: 1 for the current phase, 0 for the others.',
    labelNames: ['phase'] as const,
    registers: [registry],
    collect() {
      setStates(this, 'phase', PHASES, sources.phase());
    },
  });

  const healthStatus = new Gauge({
    name: 'app_health_status',
    help: 'Readiness as last decided (every second): 1 for the current status, 0 for the others.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const checkStatus = new Gauge({
    name: 'app_health_check_status',
    help: 'Each readiness check as last decided: 1 for its current status, 0 for the others.',
    labelNames: ['check', 'status'] as const,
    registers: [registry],
  });

  const tunnelEnvelopes = new Counter({
    name: 'app_tunnel_envelopes_total',
    help: 'Requests to the error-reporting tunnel, by outcome (forwarded, refused, upstream_failed, abandoned) and reason.',
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
  });
  const errorReports = new Counter({
    name: 'app_error_reports_total',
    help: 'Server-side error reports, by outcome (sent, dropped, logged) and reason.',
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
  });

  const inheritedSampled = new Counter({
    name: 'app_tracing_inherited_sampled_total',
    help: 'Requests whose sentry-trace header said sampled: honoured within the budget, or over_budget (sampled by the rate instead).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const transactions = new Counter({
    name: 'app_tracing_transactions_total',
    help: 'Server transactions, by outcome (sent, dropped) and reason (the ingest status class, or why the SDK or the queue dropped it).',
    labelNames: ['outcome', 'reason'] as const,
    registers: [registry],
  });

  const fleetRequests = new Counter({
    name: 'app_fleet_requests_total',
    help: "Requests for another build's file (kind: static, data), by outcome (found, cut, missing, remembered, failed, gone).",
    labelNames: ['kind', 'outcome'] as const,
    registers: [registry],
  });
  const lostFileReloads = new Counter({
    name: 'app_client_lost_file_reloads_total',
    help: "Pages that reloaded once because a build file was gone from every instance, as the pages' beacons said.",
    registers: [registry],
  });
  const outageScreens = new Counter({
    name: 'app_client_outage_screens_total',
    help: "Visitors who saw the service worker's offline or unavailable screen (screen), counted by its beacon when they were back.",
    labelNames: ['screen'] as const,
    registers: [registry],
  });
  for (const screen of ['offline', 'unavailable'] as const) outageScreens.inc({ screen }, 0);
  const beaconsIgnored = new Counter({
    name: 'app_client_beacons_ignored_total',
    help: "Pages' beacons not counted (beacon: lost_file, screen_seen), by reason (cross_site, no_origin, body, budget_spent).",
    labelNames: ['beacon', 'reason'] as const,
    registers: [registry],
  });
  const beaconBudgetsSpent = new Counter({
    name: 'app_client_beacon_budget_spent_total',
    help: "Windows in which a beacon counter's budget was spent (counter: lost_file, screen_seen:offline, screen_seen:unavailable): once per window, however many beacons followed.",
    labelNames: ['counter'] as const,
    registers: [registry],
  });
  for (const counter of BEACON_COUNTERS) beaconBudgetsSpent.inc({ counter }, 0);
  const { fleet } = sources;
  if (fleet) {
    new Gauge({
      name: 'app_fleet_peers',
      help: 'Peers this instance knows by identity (itself not counted).',
      registers: [registry],
      collect() {
        this.set(fleet().peers);
      },
    });
    new Gauge({
      name: 'app_fleet_other_builds',
      help: 'Builds other than this one that its peers serve: above 0 while a rolling update is under way.',
      registers: [registry],
      collect() {
        this.set(fleet().builds);
      },
    });
  }

  const queueCounters: Record<QueueEvent, Counter<'source' | 'reason' | 'direction'>> = {
    queued: new Counter({
      name: 'app_report_queue_queued_total',
      help: 'Envelopes that waited for the ingest instead of leaving at once, by source (server, browser).',
      labelNames: ['source'] as const,
      registers: [registry],
    }),
    sent: new Counter({
      name: 'app_report_queue_sent_total',
      help: 'Envelopes the ingest took from the queue, by source.',
      labelNames: ['source'] as const,
      registers: [registry],
    }),
    retried: new Counter({
      name: 'app_report_queue_retried_total',
      help: 'Attempts that failed and left the envelope waiting, by reason (status_5xx, timeout, unreachable, rate_limited).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    dropped: new Counter({
      name: 'app_report_queue_dropped_total',
      help: 'Envelopes let go unsent, by source and reason (full, evicted, expired, rejected, too_large, unreadable, disk_error).',
      labelNames: ['source', 'reason'] as const,
      registers: [registry],
    }),
    handed_over: new Counter({
      name: 'app_report_queue_handed_over_total',
      help: 'Waiting envelopes handed to a peer as this instance stopped (direction out), or taken from a stopping peer (in), by source.',
      labelNames: ['source', 'direction'] as const,
      registers: [registry],
    }),
    left_at_exit: new Counter({
      name: 'app_report_queue_left_at_exit_total',
      help: "Envelopes still waiting when this instance stopped, no peer having taken them: lost with the pod's folder, sent by the next process on the same folder.",
      labelNames: ['source'] as const,
      registers: [registry],
    }),
  };
  const { reportQueue } = sources;
  if (reportQueue) {
    const bySource = (name: string, help: string, read: (stats: QueueReading) => Record<string, number>) =>
      new Gauge({
        name,
        help,
        labelNames: ['source'] as const,
        registers: [registry],
        collect() {
          for (const [source, value] of Object.entries(read(reportQueue()))) this.set({ source }, value);
        },
      });
    bySource(
      'app_report_queue_envelopes',
      'Envelopes waiting for the ingest, by source.',
      (stats) => stats.envelopes,
    );
    bySource(
      'app_report_queue_bytes',
      'Bytes of envelopes waiting for the ingest, by source.',
      (stats) => stats.bytes,
    );
    new Gauge({
      name: 'app_report_queue_oldest_age_seconds',
      help: 'How long the oldest waiting envelope has waited; 0 when none waits.',
      registers: [registry],
      collect() {
        this.set(reportQueue().oldestAgeSeconds);
      },
    });
  }

  const pageCache = {
    reads: new Counter({
      name: 'app_page_cache_reads_total',
      help: "Reads of Next's page cache, by the layer that answered (memory, store, disk, build; none: a miss, the page is rendered).",
      labelNames: ['source'] as const,
      registers: [registry],
    }),
    writes: new Counter({
      name: 'app_page_cache_writes_total',
      help: 'Pages written to the page cache, by where they were kept (store; disk: the writable cache folder; memory: this instance only, the store away or failing).',
      labelNames: ['kept'] as const,
      registers: [registry],
    }),
    invalidated: new Counter({
      name: 'app_page_cache_invalidations_total',
      help: "Entries of this instance's memory dropped because another instance wrote them (key) or revalidated their tags (tags).",
      labelNames: ['by'] as const,
      registers: [registry],
    }),
    storeErrors: new Counter({
      name: 'app_page_cache_store_errors_total',
      help: 'Commands to the page cache store that failed or took longer than PAGE_CACHE_TIMEOUT_MS, by operation (get, set): each a miss or a write kept in memory only.',
      labelNames: ['operation'] as const,
      registers: [registry],
    }),
    storeSeconds: new Histogram({
      name: 'app_page_cache_store_duration_seconds',
      help: 'Time a command to the page cache store took, answer or failure, by operation.',
      labelNames: ['operation'] as const,
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
  };
  const recordPageCacheEvent = (event: PageCacheEvent, amount: number, label: string) => {
    switch (event) {
      case 'read':
        pageCache.reads.inc({ source: label }, amount);
        return;
      case 'write':
        pageCache.writes.inc({ kept: label }, amount);
        return;
      case 'invalidated':
        pageCache.invalidated.inc({ by: label }, amount);
        return;
      case 'store_error':
        pageCache.storeErrors.inc({ operation: label }, amount);
        return;
      case 'store_seconds':
        pageCache.storeSeconds.observe({ operation: label }, amount);
    }
  };
  const { pageCacheStore } = sources;
  // Read at each scrape; an instance without a store has no such series.
  if (pageCacheStore)
    new Gauge({
      name: 'app_page_cache_store_up',
      help: 'Whether the page cache store (PAGE_CACHE_URL) answers: 1 up, 0 away; absent without a store.',
      registers: [registry],
      collect() {
        this.set(pageCacheStore() ? 1 : 0);
      },
    });

  // Series that exist from the start, so a rate over them is 0 rather than absent.
  tunnelEnvelopes.inc({ outcome: 'forwarded', reason: '2xx' }, 0);
  errorReports.inc({ outcome: 'sent', reason: '' }, 0);
  inheritedSampled.inc({ outcome: 'over_budget' }, 0);
  transactions.inc({ outcome: 'sent', reason: '2xx' }, 0);
  for (const source of ['server', 'browser']) {
    queueCounters.queued.inc({ source }, 0);
    queueCounters.sent.inc({ source }, 0);
  }

  registrySlot.write(registry);
  // Bundled code (the server reporter) and the tunnel record through the slot.
  recorderSlot.write({
    tunnel: (outcome: TunnelOutcome, reason: string) => tunnelEnvelopes.inc({ outcome, reason }),
    report: (outcome: ReportOutcome, reason: string) => errorReports.inc({ outcome, reason }),
    fleet: (kind: 'static' | 'data', outcome: FleetOutcome) => fleetRequests.inc({ kind, outcome }),
    lostFileReload: () => lostFileReloads.inc(),
    outageScreen: (screen: OutageKind) => outageScreens.inc({ screen }),
    beaconIgnored: (beacon: BeaconName, reason: BeaconIgnoredReason) =>
      beaconsIgnored.inc({ beacon, reason }),
    beaconBudgetSpent: (counter: BeaconCounter) => beaconBudgetsSpent.inc({ counter }),
    inheritedSampled: (outcome: InheritedSampledOutcome) => inheritedSampled.inc({ outcome }),
    transaction: (outcome: TransactionOutcome, reason: string) => transactions.inc({ outcome, reason }),
    reportQueue: (event: QueueEvent, labels: QueueLabels, amount = 1) =>
      queueCounters[event].inc(labels, amount),
    pageCache: recordPageCacheEvent,
  });

  return {
    registry,
    requestDuration,
    observeHealth: ({ status, checks }) => {
      setStates(healthStatus, 'status', STATUSES, status);
      for (const [check, observations] of Object.entries(checks))
        setStates(checkStatus, 'status', STATUSES, worstOf(observations), { check });
    },
    render: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
  };
}
