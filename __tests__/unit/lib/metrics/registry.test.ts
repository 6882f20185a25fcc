import type { HealthReport } from '@lib/health/types';
import type { Phase } from '@lib/lifecycle/state';
import {
  productMetric,
  recordInheritedSampled,
  recordLostFileReload,
  recordOutageScreen,
  recordBeaconBudgetSpent,
  recordBeaconIgnored,
  recordQueue,
  recordPageCache,
  recordTransaction,
  recordFleet,
  recordReport,
  recordTunnel,
  recorderSlot,
  registrySlot,
  statusClass,
} from '@lib/metrics/record';
import { createMetrics, DURATION_BUCKETS, type Metrics } from '@lib/metrics/registry';

let phase: Phase;
let metrics: Metrics;

beforeEach(() => {
  phase = 'starting';
  metrics = createMetrics({ phase: () => phase, inFlight: () => 4, version: '1.2.3', release: 'abc123' });
});
afterEach(() => {
  metrics.registry.clear();
  recorderSlot.clear();
  registrySlot.clear();
});

/** The lines of a rendering that start with `name{` or `name `. */
async function lines(name: string): Promise<string[]> {
  const { text } = await metrics.render();
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('the process registry', () => {
  it("renders Prometheus text with Node's process metrics", async () => {
    const { contentType, text } = await metrics.render();
    expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'process_start_time_seconds',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_gc_duration_seconds',
    ])
      expect(text).toContain(`# TYPE ${name} `);
  });

  it('has the request histogram with the OpenTelemetry labels and web-latency buckets', async () => {
    metrics.requestDuration.observe(
      { http_request_method: 'GET', http_route: '/404', http_response_status_code: '404' },
      0.02,
    );
    const buckets = await lines('http_server_request_duration_seconds_bucket');
    // docs/metrics.md: 5 ms to 10 s, written out.
    expect([DURATION_BUCKETS[0], DURATION_BUCKETS.at(-1)]).toEqual([0.005, 10]);
    expect(buckets).toHaveLength(DURATION_BUCKETS.length + 1);
    expect(buckets).toContain(
      'http_server_request_duration_seconds_bucket{le="0.025",http_request_method="GET",http_route="/404",http_response_status_code="404"} 1',
    );
    expect(buckets).toContain(
      'http_server_request_duration_seconds_bucket{le="0.01",http_request_method="GET",http_route="/404",http_response_status_code="404"} 0',
    );
  });

  it('shows the lifecycle phase as it is at the scrape', async () => {
    expect(await lines('app_lifecycle_phase')).toContain('app_lifecycle_phase{phase="starting"} 1');
    phase = 'draining';
    const now = await lines('app_lifecycle_phase');
    expect(now).toContain('app_lifecycle_phase{phase="draining"} 1');
    expect(now).toContain('app_lifecycle_phase{phase="starting"} 0');
  });

  it('shows readiness and each check as last decided', async () => {
    const time = new Date().toISOString();
    // A report as lib/health makes it: the registry's own reading of one is met by its shape.
    const report: Pick<HealthReport, 'status' | 'checks'> = {
      status: 'warn',
      checks: {
        'eventloop:delay': [{ status: 'pass', time }],
        'orders:responseTime': [
          { status: 'pass', time },
          { status: 'warn', time },
        ],
      },
    };
    metrics.observeHealth(report);
    expect(await lines('app_health_status')).toEqual(
      expect.arrayContaining(['app_health_status{status="warn"} 1', 'app_health_status{status="pass"} 0']),
    );
    expect(await lines('app_health_check_status')).toEqual(
      expect.arrayContaining([
        'app_health_check_status{check="eventloop:delay",status="pass"} 1',
        'app_health_check_status{check="orders:responseTime",status="warn"} 1',
        'app_health_check_status{check="orders:responseTime",status="pass"} 0',
      ]),
    );
  });

  it('counts what is recorded through the process slot, the way bundled code records it', async () => {
    recordTunnel('refused', 'too_large');
    recordTunnel('refused', 'too_large');
    recordTunnel('forwarded', statusClass(200));
    recordReport('dropped', 'ratelimit_backoff');
    recordReport('logged');
    expect(await lines('app_tunnel_envelopes_total')).toEqual(
      expect.arrayContaining([
        'app_tunnel_envelopes_total{outcome="refused",reason="too_large"} 2',
        'app_tunnel_envelopes_total{outcome="forwarded",reason="2xx"} 1',
      ]),
    );
    expect(await lines('app_error_reports_total')).toEqual(
      expect.arrayContaining([
        'app_error_reports_total{outcome="dropped",reason="ratelimit_backoff"} 1',
        'app_error_reports_total{outcome="logged",reason=""} 1',
      ]),
    );
  });

  it('has the build and the requests in flight', async () => {
    expect(await lines('app_build_info')).toEqual(['app_build_info{version="1.2.3",release="abc123"} 1']);
    expect(await lines('http_server_active_requests')).toEqual(['http_server_active_requests 4']);
  });
});

describe('recording without a registry', () => {
  it('does nothing and never throws', () => {
    recorderSlot.clear();
    expect(() => recordTunnel('refused', 'method')).not.toThrow();
    recorderSlot.write({
      tunnel: () => {
        throw new Error('broken');
      },
      report: () => {
        throw new Error('broken');
      },
      fleet: () => {
        throw new Error('broken');
      },
      lostFileReload: () => {
        throw new Error('broken');
      },
      outageScreen: () => {
        throw new Error('broken');
      },
      beaconIgnored: () => {
        throw new Error('broken');
      },
      beaconBudgetSpent: () => {
        throw new Error('broken');
      },
      inheritedSampled: () => {
        throw new Error('broken');
      },
      transaction: () => {
        throw new Error('broken');
      },
      reportQueue: () => {
        throw new Error('broken');
      },
      pageCache: () => {
        throw new Error('broken');
      },
    });
    expect(() => recordTunnel('refused', 'method')).not.toThrow();
    expect(() => recordReport('sent')).not.toThrow();
    expect(() => recordFleet('static', 'found')).not.toThrow();
    expect(() => recordLostFileReload()).not.toThrow();
    expect(() => recordOutageScreen('offline')).not.toThrow();
    expect(() => recordBeaconIgnored('lost_file', 'body')).not.toThrow();
    expect(() => recordBeaconBudgetSpent('screen_seen:offline')).not.toThrow();
    expect(() => recordQueue('dropped', { source: 'server', reason: 'full' })).not.toThrow();
    expect(() => recordInheritedSampled('honoured')).not.toThrow();
    expect(() => recordTransaction('sent', '2xx')).not.toThrow();
    expect(() => recordPageCache('read', 1, 'store')).not.toThrow();
  });
});

describe('the status class of an ingest answer', () => {
  it('keeps 429 apart and folds the rest by hundreds', () => {
    expect([200, 202, 400, 413, 429, 500, 503].map(statusClass)).toEqual([
      '2xx',
      '2xx',
      '4xx',
      '4xx',
      '429',
      '5xx',
      '5xx',
    ]);
    expect(statusClass(undefined)).toBe('none');
    expect(statusClass(1000)).toBe('none');
    // The range's edges, and one past each.
    expect([99, 100, 599, 600].map(statusClass)).toEqual(['none', '1xx', '5xx', 'none']);
    expect(statusClass(200.5)).toBe('none');
  });
});

describe("a product's own metric", () => {
  it('joins the one registry, made once however many copies of a module ask for it', async () => {
    const { Counter } = jest.requireActual<typeof import('prom-client')>('prom-client');
    const make = () =>
      productMetric(
        'orders_placed_total',
        (registers) => new Counter({ name: 'orders_placed_total', help: 'Orders placed.', registers }),
      );
    const first = make();
    const second = make();
    expect(second).toBe(first);
    first?.inc(2);
    expect(await lines('orders_placed_total')).toEqual(['orders_placed_total 2']);
  });

  it('is undefined with metrics off, so recording it does nothing', () => {
    registrySlot.clear();
    expect(productMetric('orders_placed_total', () => 'made')).toBeUndefined();
  });
});

describe('every series docs/metrics.md lists', () => {
  it('exists from the start at 0, so a rate over it is 0 rather than absent', async () => {
    const { text } = await metrics.render();
    for (const line of [
      'app_tunnel_envelopes_total{outcome="forwarded",reason="2xx"} 0',
      'app_error_reports_total{outcome="sent",reason=""} 0',
      'app_tracing_inherited_sampled_total{outcome="over_budget"} 0',
      'app_tracing_transactions_total{outcome="sent",reason="2xx"} 0',
      'app_report_queue_queued_total{source="server"} 0',
      'app_report_queue_queued_total{source="browser"} 0',
      'app_report_queue_sent_total{source="server"} 0',
      'app_report_queue_sent_total{source="browser"} 0',
      'app_client_outage_screens_total{screen="offline"} 0',
      'app_client_outage_screens_total{screen="unavailable"} 0',
      'app_client_beacon_budget_spent_total{counter="lost_file"} 0',
      'app_client_beacon_budget_spent_total{counter="screen_seen:offline"} 0',
      'app_client_beacon_budget_spent_total{counter="screen_seen:unavailable"} 0',
    ])
      expect(text.split('\n')).toContain(line);
  });

  it('counts each recorder in its own series, under its labels', async () => {
    recordFleet('data', 'cut');
    recordLostFileReload();
    recordLostFileReload();
    recordOutageScreen('unavailable');
    recordBeaconIgnored('screen_seen', 'budget_spent');
    recordBeaconBudgetSpent('screen_seen:unavailable');
    recordInheritedSampled('honoured');
    recordTransaction('dropped', 'queue_full');
    recordTransaction('queued');
    recordQueue('queued', { source: 'browser' });
    recordQueue('sent', { source: 'server' }, 3);
    recordQueue('retried', { reason: 'timeout' });
    recordQueue('dropped', { source: 'server', reason: 'expired' });
    recordQueue('handed_over', { source: 'browser', direction: 'out' });
    recordQueue('left_at_exit', { source: 'server' }, 2);
    const { text } = await metrics.render();
    const rendered = text.split('\n');
    for (const line of [
      'app_fleet_requests_total{kind="data",outcome="cut"} 1',
      'app_client_lost_file_reloads_total 2',
      'app_client_outage_screens_total{screen="unavailable"} 1',
      'app_client_beacons_ignored_total{beacon="screen_seen",reason="budget_spent"} 1',
      'app_client_beacon_budget_spent_total{counter="screen_seen:unavailable"} 1',
      'app_tracing_inherited_sampled_total{outcome="honoured"} 1',
      'app_tracing_transactions_total{outcome="dropped",reason="queue_full"} 1',
      'app_tracing_transactions_total{outcome="queued",reason=""} 1',
      'app_report_queue_queued_total{source="browser"} 1',
      'app_report_queue_sent_total{source="server"} 3',
      'app_report_queue_retried_total{reason="timeout"} 1',
      'app_report_queue_dropped_total{source="server",reason="expired"} 1',
      'app_report_queue_handed_over_total{source="browser",direction="out"} 1',
      'app_report_queue_left_at_exit_total{source="server"} 2',
    ])
      expect(rendered).toContain(line);
  });

  it("shows the fleet's and the queue's state as it is at the scrape, when the server has them", async () => {
    expect(await lines('app_fleet_peers')).toEqual([]);
    expect(await lines('app_report_queue_envelopes')).toEqual([]);
    metrics.registry.clear();
    recorderSlot.clear();
    registrySlot.clear();
    let fleet = { peers: 2, builds: 1 };
    let queue = {
      envelopes: { server: 3, browser: 1 },
      bytes: { server: 900, browser: 40 },
      oldestAgeSeconds: 12,
    };
    metrics = createMetrics({
      phase: () => phase,
      inFlight: () => 0,
      version: '1',
      release: 'r',
      fleet: () => fleet,
      reportQueue: () => ({ ...queue, memoryBytes: 0 }),
    });
    const scrape = async () => (await metrics.render()).text.split('\n');
    expect(await scrape()).toEqual(
      expect.arrayContaining([
        'app_fleet_peers 2',
        'app_fleet_other_builds 1',
        'app_report_queue_envelopes{source="server"} 3',
        'app_report_queue_envelopes{source="browser"} 1',
        'app_report_queue_bytes{source="server"} 900',
        'app_report_queue_bytes{source="browser"} 40',
        'app_report_queue_oldest_age_seconds 12',
      ]),
    );
    fleet = { peers: 0, builds: 0 };
    queue = { envelopes: { server: 0, browser: 0 }, bytes: { server: 0, browser: 0 }, oldestAgeSeconds: 0 };
    expect(await scrape()).toEqual(
      expect.arrayContaining([
        'app_fleet_peers 0',
        'app_fleet_other_builds 0',
        'app_report_queue_envelopes{source="server"} 0',
        'app_report_queue_bytes{source="browser"} 0',
        'app_report_queue_oldest_age_seconds 0',
      ]),
    );
  });
});

describe('the page cache series (docs/page-cache.md)', () => {
  it('counts reads, writes, invalidations and store errors under their labels, and times the store', async () => {
    recordPageCache('read', 1, 'memory');
    recordPageCache('read', 2, 'store');
    recordPageCache('read', 1, 'none');
    recordPageCache('write', 1, 'store');
    recordPageCache('write', 4, 'memory');
    recordPageCache('invalidated', 3, 'tags');
    recordPageCache('invalidated', 1, 'key');
    recordPageCache('store_error', 2, 'get');
    recordPageCache('store_seconds', 0.003, 'set');
    recordPageCache('store_seconds', 2, 'set');
    const rendered = (await metrics.render()).text.split('\n');
    for (const line of [
      'app_page_cache_reads_total{source="memory"} 1',
      'app_page_cache_reads_total{source="store"} 2',
      'app_page_cache_reads_total{source="none"} 1',
      'app_page_cache_writes_total{kept="store"} 1',
      'app_page_cache_writes_total{kept="memory"} 4',
      'app_page_cache_invalidations_total{by="tags"} 3',
      'app_page_cache_invalidations_total{by="key"} 1',
      'app_page_cache_store_errors_total{operation="get"} 2',
      'app_page_cache_store_duration_seconds_bucket{le="0.0025",operation="set"} 0',
      'app_page_cache_store_duration_seconds_bucket{le="0.005",operation="set"} 1',
      'app_page_cache_store_duration_seconds_bucket{le="1",operation="set"} 1',
      'app_page_cache_store_duration_seconds_bucket{le="+Inf",operation="set"} 2',
      'app_page_cache_store_duration_seconds_sum{operation="set"} 2.003',
      'app_page_cache_store_duration_seconds_count{operation="set"} 2',
    ])
      expect(rendered).toContain(line);
    // Each event in its own series only: eight counts, the twelve buckets with +Inf, the sum and the count.
    expect(
      rendered.filter((line) => line.startsWith('app_page_cache_') && !line.startsWith('#')),
    ).toHaveLength(8 + 12 + 2);
  });

  it('shows whether the store answers as it is at each scrape, and no such series without a store', async () => {
    expect(await lines('app_page_cache_store_up')).toEqual([]);
    metrics.registry.clear();
    recorderSlot.clear();
    registrySlot.clear();
    let up = true;
    metrics = createMetrics({
      phase: () => phase,
      inFlight: () => 0,
      version: '1',
      release: 'r',
      pageCacheStore: () => up,
    });
    expect(await lines('app_page_cache_store_up')).toEqual(['app_page_cache_store_up 1']);
    up = false;
    expect(await lines('app_page_cache_store_up')).toEqual(['app_page_cache_store_up 0']);
  });
});
