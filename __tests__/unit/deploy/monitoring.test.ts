// The monitoring files must agree with the app: every metric the alerting rules and the dashboard
// name is one the app serves, and Prometheus is pointed at the port and path that serve them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readSettings } from '@lib/config/settings';
import { recorderSlot, registrySlot } from '@lib/metrics/record';
import { createMetrics } from '@lib/metrics/registry';

const ROOT = path.resolve(__dirname, '../../..');
const K8S = path.join(ROOT, 'deploy/kubernetes');
const MONITORING = path.join(K8S, 'monitoring');

const yamlFile = (file: string) =>
  parseAllDocuments(readFileSync(file, 'utf8')).map((doc) => doc.toJS() as Record<string, unknown>);

interface Kustomization {
  resources: string[];
  configMapGenerator: { name: string; files: string[]; options: { labels: Record<string, string> } }[];
}
interface PodMonitor {
  kind: 'PodMonitor';
  spec: {
    selector: { matchLabels: Record<string, string> };
    podTargetLabels: string[];
    podMetricsEndpoints: { port: string; path: string }[];
  };
}
interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: { severity: string };
  annotations: { summary: string; description: string };
}
interface PrometheusRule {
  kind: 'PrometheusRule';
  spec: { groups: { name: string; rules: Rule[] }[] };
}
interface Panel {
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: { expr: string }[];
  panels?: Panel[];
}

const kustomization = yamlFile(path.join(MONITORING, 'kustomization.yaml'))[0] as unknown as Kustomization;
const resources = kustomization.resources.flatMap((file) => yamlFile(path.join(MONITORING, file)));
const podMonitor = resources.find((r) => r.kind === 'PodMonitor') as unknown as PodMonitor;
const rules = (
  resources.find((r) => r.kind === 'PrometheusRule') as unknown as PrometheusRule
).spec.groups.flatMap((group) => group.rules);
const dashboardFile = kustomization.configMapGenerator[0]!.files[0]!.split('=')[1]!;
const dashboard = JSON.parse(readFileSync(path.join(MONITORING, dashboardFile), 'utf8')) as {
  panels: Panel[];
  templating: { list: { name: string; query: unknown }[] };
};
const deployment = yamlFile(path.join(K8S, 'deployment.yaml'))[0] as unknown as {
  spec: {
    template: {
      metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      spec: { containers: { ports: { name: string; containerPort: number }[] }[] };
    };
  };
};

/** Series Prometheus makes itself for every target, not the app. */
const PROMETHEUS_OWN = new Set(['up']);
/** The product's own metrics (lib/metrics/record.ts, productMetric), made where they are used. */
const PRODUCT_METRICS = new Set<string>([]);

/** Every series name the app's registry serves: histograms with their _bucket, _sum and _count. */
async function servedNames(): Promise<Set<string>> {
  const metrics = createMetrics({
    phase: () => 'ready',
    inFlight: () => 0,
    version: 'v',
    release: 'r',
    // As every replica with FLEET_PEERS serves them.
    fleet: () => ({ peers: 0, builds: 0 }),
    // As every replica with a DSN serves them.
    reportQueue: () => ({
      envelopes: { server: 0, browser: 0 },
      bytes: { server: 0, browser: 0 },
      oldestAgeSeconds: 0,
      memoryBytes: 0,
    }),
    // As every replica with a page cache store (PAGE_CACHE_URL) serves it.
    pageCacheStore: () => true,
  });
  try {
    const names = new Set<string>(PRODUCT_METRICS);
    for (const { name, type } of await metrics.registry.getMetricsAsJSON()) {
      names.add(name);
      if (String(type) === 'histogram')
        for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    }
    return names;
  } finally {
    metrics.registry.clear();
    recorderSlot.clear();
    registrySlot.clear();
  }
}

const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/** The metric names a PromQL expression reads: not its functions, labels, strings or durations. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\$\{?\w+\}?/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\boffset\s+-?\w+/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  // Whole words only: a word followed by `(` is a function or an aggregation.
  return [...bare.matchAll(/[A-Za-z_:][\w:]*/g)]
    .filter(({ 0: name, index }) => !/^\s*\(/.test(bare.slice(index + name.length)))
    .map(([name]) => name)
    .filter((name) => !KEYWORDS.has(name.toLowerCase()));
}

function panelsOf(panels: Panel[]): Panel[] {
  return panels.flatMap((panel) => [panel, ...panelsOf(panel.panels ?? [])]);
}

describe('reading metric names from PromQL', () => {
  it('finds the metrics and nothing else', () => {
    expect(
      metricNames(
        'histogram_quantile(0.95, sum by (le, http_route) (rate(a_bucket{x="y", pod=~"$pod"}[5m]))) / on (pod) b > bool 1',
      ),
    ).toEqual(['a_bucket', 'b']);
    expect(metricNames('changes(c{status="fail"}[15m]) > 4 and d_total offset 5m')).toEqual(['c', 'd_total']);
    expect(metricNames('max by (pod) (e[$__rate_interval])')).toEqual(['e']);
  });
});

describe('the alerting rules', () => {
  it('alert on the 5xx ratio, latency, readiness flapping, event-loop lag and restarts', () => {
    const alerts = rules.map((rule) => rule.alert);
    expect(alerts).toEqual(
      expect.arrayContaining([
        'AppShellHighErrorRatio',
        'AppShellSlowRequests',
        'AppShellReadinessFlapping',
        'AppShellEventLoopLag',
        'AppShellRestarting',
        'AppShellReportsWaiting',
        'AppShellPageCacheStoreDown',
        'AppShellPageCacheStoreErrors',
      ]),
    );
    const byName = new Map(rules.map((rule) => [rule.alert, rule.expr]));
    expect(byName.get('AppShellHighErrorRatio')).toContain('http_response_status_code=~"5.."');
    expect(byName.get('AppShellSlowRequests')).toContain('histogram_quantile');
    expect(byName.get('AppShellReadinessFlapping')).toContain('changes(app_health_status');
    expect(byName.get('AppShellEventLoopLag')).toContain('nodejs_eventloop_lag_p99_seconds');
    expect(byName.get('AppShellRestarting')).toContain('changes(process_start_time_seconds');
    expect(byName.get('AppShellReportsWaiting')).toContain('app_report_queue_oldest_age_seconds');
    expect(byName.get('AppShellPageCacheStoreDown')).toContain('app_page_cache_store_up');
    expect(byName.get('AppShellPageCacheStoreErrors')).toContain('app_page_cache_store_errors_total');
  });

  it('name only metrics the app serves', async () => {
    const served = await servedNames();
    const unknown = rules.flatMap((rule) =>
      metricNames(rule.expr)
        .filter((name) => !served.has(name) && !PROMETHEUS_OWN.has(name))
        .map((name) => `${rule.alert}: ${name}`),
    );
    expect(unknown).toEqual([]);
  });

  it("never fire on a client's count alone: each also needs what the server saw, and says what a client can forge", () => {
    const onClientCounts = rules.filter((rule) =>
      metricNames(rule.expr).some((name) => name.startsWith('app_client_')),
    );
    expect(onClientCounts.map((rule) => rule.alert)).toEqual(['AppShellPagesLosingFiles']);
    for (const rule of onClientCounts) {
      // Every condition joined by `and` must hold; one of them is the server's own observation.
      const conditions = rule.expr.split(/\n\s*and\s*\n/);
      expect(conditions.length).toBeGreaterThan(1);
      expect(
        conditions.some((condition) =>
          metricNames(condition).every((name) => !name.startsWith('app_client_')),
        ),
      ).toBe(true);
      expect(rule.annotations.description).toContain('What a client can forge');
    }
  });

  it('fire at the thresholds the docs state (client-counts.md, report-queue.md, page-cache.md)', () => {
    const expr = (alert: string) =>
      rules.find((rule) => rule.alert === alert)?.expr.replace(/\s+/g, ' ') ?? '';
    // Reloads above 1 % of the build files served, at least 1,000 of them, over 30 minutes.
    const losing = expr('AppShellPagesLosingFiles');
    expect(losing).toContain('> 0.01 * sum(increase(http_server_request_duration_seconds_count');
    expect(losing).toContain('>= 1000');
    expect(losing.match(/\[(\w+)\]/g)).toEqual(['[30m]', '[30m]', '[30m]', '[30m]']);
    // The oldest waiting report older than 15 minutes.
    expect(expr('AppShellReportsWaiting')).toMatch(/app_report_queue_oldest_age_seconds\{[^}]*\}\) > 900 $/);
    // A pod away from the page cache store for 5 minutes.
    const storeDown = rules.find((rule) => rule.alert === 'AppShellPageCacheStoreDown');
    expect(storeDown?.expr.trim()).toBe('app_page_cache_store_up{app_kubernetes_io_name="app-shell"} == 0');
    expect(storeDown?.for).toBe('5m');
    // More than 5 % of the store's commands failing: errors over every command, timed answer or failure.
    const storeErrors = expr('AppShellPageCacheStoreErrors');
    expect(storeErrors).toMatch(
      /^sum\(rate\(app_page_cache_store_errors_total\{[^}]*\}\[5m\]\)\) \/ sum\(rate\(app_page_cache_store_duration_seconds_count\{[^}]*\}\[5m\]\)\) > 0\.05 $/,
    );
  });

  it('each have a severity, a summary and a description', () => {
    for (const rule of rules) {
      expect(['critical', 'warning']).toContain(rule.labels.severity);
      expect(rule.annotations.summary.length).toBeGreaterThan(10);
      expect(rule.annotations.description.length).toBeGreaterThan(10);
    }
  });
});

describe('the Grafana dashboard', () => {
  const targets = panelsOf(dashboard.panels).flatMap((panel) =>
    (panel.targets ?? []).map((target) => ({ panel: panel.title, expr: target.expr })),
  );

  it('shows the request and process metrics', () => {
    const named = new Set(targets.flatMap(({ expr }) => metricNames(expr)));
    for (const name of [
      'http_server_request_duration_seconds_count',
      'http_server_request_duration_seconds_bucket',
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_p99_seconds',
    ])
      expect(named).toContain(name);
  });

  it('shows the page cache: reads by source, whether the store is up, and its p99 duration', () => {
    const exprOf = (title: string) => targets.filter(({ panel }) => panel === title).map(({ expr }) => expr);
    expect(exprOf('Page cache reads by source')).toEqual([
      expect.stringMatching(/^sum by \(source\) \(rate\(app_page_cache_reads_total\{/),
    ]);
    expect(exprOf('Page cache store up')).toEqual([expect.stringContaining('app_page_cache_store_up{')]);
    expect(exprOf('Page cache store p99 duration')).toEqual([
      expect.stringMatching(
        /^histogram_quantile\(0\.99, sum by \(le, operation\) \(rate\(app_page_cache_store_duration_seconds_bucket\{/,
      ),
    ]);
    const named = new Set(targets.flatMap(({ expr }) => metricNames(expr)));
    for (const name of ['app_page_cache_writes_total', 'app_page_cache_store_errors_total'])
      expect(named).toContain(name);
  });

  it('lays its panels out on the 24-column grid, none over another', () => {
    const placed = dashboard.panels.map(({ title, gridPos }) => ({ title, ...gridPos }));
    for (const panel of placed) {
      expect(panel.x).toBeGreaterThanOrEqual(0);
      expect(panel.x + panel.w).toBeLessThanOrEqual(24);
    }
    const overlapping = placed.flatMap((a, i) =>
      placed
        .slice(i + 1)
        .filter((b) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h)
        .map((b) => `${a.title} / ${b.title}`),
    );
    expect(overlapping).toEqual([]);
  });

  it('names only metrics the app serves', async () => {
    const served = await servedNames();
    const queries = [
      ...targets,
      ...dashboard.templating.list.map((variable) => ({
        panel: `variable ${variable.name}`,
        expr: typeof variable.query === 'object' ? (variable.query as { query: string }).query : '',
      })),
    ];
    const unknown = queries.flatMap(({ panel, expr }) =>
      metricNames(expr.replace(/^label_values\((.*),\s*\w+\)$/, '$1'))
        .filter((name) => !served.has(name))
        .map((name) => `${panel}: ${name}`),
    );
    expect(targets.length).toBeGreaterThan(10);
    expect(unknown).toEqual([]);
  });

  it('is shipped as a ConfigMap for Grafana’s dashboard sidecar', () => {
    expect(kustomization.configMapGenerator[0]!.options.labels).toEqual({ grafana_dashboard: '1' });
  });
});

describe('the scrape configuration', () => {
  const settings = readSettings({});
  const template = deployment.spec.template;

  it('points the PodMonitor at the management port’s /metrics, on the app’s pods', () => {
    const [endpoint] = podMonitor.spec.podMetricsEndpoints;
    expect(endpoint).toEqual(expect.objectContaining({ port: 'management', path: '/metrics' }));
    expect(template.spec.containers[0]!.ports.find((port) => port.name === 'management')?.containerPort).toBe(
      settings.managementPort,
    );
    expect(template.metadata.labels).toEqual(expect.objectContaining(podMonitor.spec.selector.matchLabels));
  });

  it('copies the pod label the rules and the dashboard select by', () => {
    const label = podMonitor.spec.podTargetLabels[0]!.replace(/[^\w]/g, '_');
    expect(label).toBe('app_kubernetes_io_name');
    for (const { expr } of rules)
      expect(expr).toContain(`${label}="${template.metadata.labels['app.kubernetes.io/name']}"`);
  });

  it('annotates the pods for annotation-based discovery with the same port and path', () => {
    expect(template.metadata.annotations).toEqual({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(settings.managementPort),
      'prometheus.io/path': '/metrics',
    });
  });
});
