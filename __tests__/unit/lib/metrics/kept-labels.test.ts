// The request histogram's label sets kept (lib/metrics/kept-labels.ts): what /metrics renders must be
// what prom-client's own observe makes of the same observations, whatever the values and label sets.
import { Histogram, Registry } from 'prom-client';
import { KEPT_LABEL_SETS, keptObserve } from '@lib/metrics/kept-labels';
import { DURATION_BUCKETS } from '@lib/metrics/registry';

type Label = 'http_request_method' | 'http_route' | 'http_response_status_code';

function histogramIn(registry: Registry): Histogram<Label> {
  return new Histogram({
    name: 'http_server_request_duration_seconds',
    help: 'test',
    labelNames: ['http_request_method', 'http_route', 'http_response_status_code'] as const,
    buckets: DURATION_BUCKETS,
    registers: [registry],
  });
}

const labelsOf = (method: string, route: string, status: number) => ({
  http_request_method: method,
  http_route: route,
  http_response_status_code: String(status),
});

/** Every bound, just below and just above it, zero, the smallest number, and past the largest bound. */
const VALUES = [
  0,
  Number.MIN_VALUE,
  ...DURATION_BUCKETS.flatMap((bound) => [bound - 1e-9, bound, bound + 1e-9]),
  11,
  1e9,
];

const SETS: [string, string, number][] = [
  ['GET', '/404', 404],
  ['GET', '/products/[id]', 200],
  ['POST', '/api/things', 500],
  ['GET', '/404', 200],
];

/** The same observations made both ways, and both registries' texts. */
async function bothWays(observations: [string, string, number, number][]) {
  const ours = new Registry();
  const theirs = new Registry();
  const kept = keptObserve(histogramIn(ours));
  const plain = histogramIn(theirs);
  for (const [method, route, status, value] of observations) {
    kept.observe(`${method} ${status} ${route}`, () => labelsOf(method, route, status), value);
    plain.observe(labelsOf(method, route, status), value);
  }
  return { ours: await ours.metrics(), theirs: await theirs.metrics(), kept };
}

describe('keptObserve', () => {
  it('renders what prom-client renders, for every bucket edge and several label sets', async () => {
    const observations = SETS.flatMap(([method, route, status]) =>
      VALUES.map((value): [string, string, number, number] => [method, route, status, value]),
    );
    const { ours, theirs, kept } = await bothWays(observations);
    expect(ours).toBe(theirs);
    expect(kept.size()).toBe(SETS.length);
    // (Not an empty text on both sides: a bucket past the first bound is counted.)
    expect(ours).toContain(
      'http_server_request_duration_seconds_bucket{le="0.01",http_request_method="GET",http_route="/404",http_response_status_code="404"} 7',
    );
    expect(ours).toContain(
      'http_server_request_duration_seconds_bucket{le="+Inf",http_request_method="GET",http_route="/404",http_response_status_code="404"} 46',
    );
  });

  it('renders what prom-client renders when the observations of label sets interleave', async () => {
    const observations: [string, string, number, number][] = [];
    for (let index = 0; index < 200; index += 1) {
      const [method, route, status] = SETS[index % SETS.length] as [string, string, number];
      observations.push([method, route, status, (index * 0.037) % 12]);
    }
    const { ours, theirs } = await bothWays(observations);
    expect(ours).toBe(theirs);
  });

  it('asks for a label set once, the first time its key comes', () => {
    const kept = keptObserve(histogramIn(new Registry()));
    const labels = jest.fn(() => labelsOf('GET', '/404', 404));
    for (let index = 0; index < 5; index += 1) kept.observe('GET 404 /404', labels, 0.001);
    expect(labels).toHaveBeenCalledTimes(1);
  });

  it('still refuses, as prom-client does, a value that is not a number', () => {
    const kept = keptObserve(histogramIn(new Registry()));
    kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), 0.001);
    expect(() => kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), Number.NaN)).toThrow(
      'Value is not a valid number',
    );
    expect(() => kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), Infinity)).toThrow(
      TypeError,
    );
  });

  it('starts again after prom-client resets the histogram', async () => {
    const registry = new Registry();
    const histogram = histogramIn(registry);
    const kept = keptObserve(histogram);
    kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), 0.001);
    histogram.reset();
    kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), 0.001);
    kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), 0.001);
    expect(await registry.metrics()).toContain(
      'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/404",http_response_status_code="404"} 2',
    );
  });

  it('counts where prom-client does after it removes a label set or zeroes one', async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const kept = keptObserve(histogramIn(ours));
    const plain = histogramIn(theirs);
    const mine = ours.getSingleMetric('http_server_request_duration_seconds') as Histogram<Label>;
    const both = (method: string, route: string, status: number, value: number) => {
      kept.observe(`${method} ${status} ${route}`, () => labelsOf(method, route, status), value);
      plain.observe(labelsOf(method, route, status), value);
    };
    both('GET', '/404', 404, 0.001);
    both('GET', '/a', 200, 0.2);
    for (const histogram of [mine, plain]) histogram.remove(labelsOf('GET', '/404', 404));
    both('GET', '/404', 404, 0.003);
    for (const histogram of [mine, plain]) histogram.zero(labelsOf('GET', '/a', 200));
    both('GET', '/a', 200, 0.3);
    both('GET', '/404', 404, 0.004);
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).toContain(
      'http_server_request_duration_seconds_count{http_request_method="GET",http_route="/a",http_response_status_code="200"} 1',
    );
  });

  it(`keeps at most ${KEPT_LABEL_SETS} label sets, and counts the others through prom-client`, async () => {
    const { ours, theirs, kept } = await bothWays(
      Array.from({ length: KEPT_LABEL_SETS + 2 }, (_, index): [string, string, number, number] => [
        'GET',
        `/r${index % (KEPT_LABEL_SETS + 1)}`,
        200,
        0.02,
      ]),
    );
    expect(kept.size()).toBe(KEPT_LABEL_SETS);
    expect(ours).toBe(theirs);
  });

  it('observes through prom-client alone when its record is not where this version keeps it', () => {
    // A later prom-client that keeps its label sets otherwise: only observe is there, or no bounds.
    for (const fields of [{}, { hashMap: {} }, { upperBounds: [1] }]) {
      const observe = jest.fn();
      const kept = keptObserve({ observe, ...fields } as unknown as Histogram<Label>);
      for (let index = 0; index < 3; index += 1)
        kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), 0.001);
      expect(observe).toHaveBeenCalledTimes(3);
      expect(observe).toHaveBeenLastCalledWith(labelsOf('GET', '/404', 404), 0.001);
      expect(kept.size()).toBe(0);
    }
  });

  it.each([
    ['a sum that is not a number', { sum: '0', count: 0, bucketValues: {} }],
    ['a count that is not a number', { sum: 0, count: '0', bucketValues: {} }],
    ['no bucket counts', { sum: 0, count: 0 }],
    ['bucket counts that are null', { sum: 0, count: 0, bucketValues: null }],
  ])('keeps no record it cannot add to: %s', (_name, shape) => {
    const hashMap: Record<string, unknown> = {};
    const observe = jest.fn((labels: unknown) => {
      hashMap.only = { labels, ...shape };
    });
    const kept = keptObserve({ observe, hashMap, upperBounds: [1] } as unknown as Histogram<Label>);
    for (let index = 0; index < 3; index += 1)
      kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), 0.5);
    expect(observe).toHaveBeenCalledTimes(3);
    expect(kept.size()).toBe(0);
  });

  it('adds to a record it can read, in its bucket', () => {
    const hashMap: Record<
      string,
      { labels: unknown; sum: number; count: number; bucketValues: Record<string, number> }
    > = {};
    const observe = jest.fn((labels: unknown, value: number) => {
      hashMap.only = { labels, sum: value, count: 1, bucketValues: { '1': value <= 1 ? 1 : 0 } };
    });
    const kept = keptObserve({ observe, hashMap, upperBounds: [1] } as unknown as Histogram<Label>);
    for (const value of [0.5, 0.5, 1, 3])
      kept.observe('GET 404 /404', () => labelsOf('GET', '/404', 404), value);
    expect(observe).toHaveBeenCalledTimes(1);
    expect(hashMap.only).toMatchObject({ sum: 5, count: 4, bucketValues: { '1': 3 } });
  });
});
