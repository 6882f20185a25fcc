// A product page's failure as an operator sees it, on the example product: each answer Next gives
// with its error page (a 500 of a page whose upstream is down, of a page that throws in render, of
// an API route; a 404 of a page's `notFound`) is counted on /metrics and logged under the failing
// route's pattern, never `/_error` or `/404`; and each server error is one `server.error` line, with
// its cause chain and a stack that names the source file, and no console line of Next's for it.
import { rmSync } from 'node:fs';
import { rawRequest } from '../support/http';
import { buildProduct, PARITY_PRODUCTS, prebuiltProduct } from '../support/product-build';
import { freePort, startServer, type RunningServer } from '../support/server';

const PRODUCT = PARITY_PRODUCTS.find(({ name }) => name === 'example')!;

interface Line {
  event: string;
  level: string;
  route?: string;
  status?: number;
  path?: string;
  reference?: string;
  type?: string;
  message?: string;
  stack?: string;
  cause?: { type: string; message: string; code?: string; cause?: Line['cause'] };
  method?: string;
}

let dir = '';
let server: RunningServer;
let metrics = '';
let lines: Line[] = [];
const statuses: Record<string, number> = {};

beforeAll(async () => {
  dir = prebuiltProduct(PRODUCT.name) ?? buildProduct(PRODUCT);
  // The product's upstream is down: a port nothing listens on.
  const upstream = await freePort();
  server = await startServer({
    distDir: '.next',
    root: dir,
    env: { PRODUCT_API_URL: `http://127.0.0.1:${upstream}` },
  });
  try {
    for (const target of ['/products/7', '/blog/gone', '/api/fails', '/broken', '/products/8'])
      statuses[target] = (await rawRequest(server.url, target)).status;
    metrics = await (await fetch(`http://127.0.0.1:${server.managementPort}/metrics`)).text();
  } finally {
    await server.stop();
  }
  lines = server
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Line);
}, 600_000);

afterAll(() => {
  if (dir && !prebuiltProduct(PRODUCT.name)) rmSync(dir, { recursive: true, force: true });
});

/** How many requests /metrics counted under `route` with `status`. */
function counted(route: string, status: number): number {
  const escaped = route.replace(/[[\]/.*+?^${}()|\\]/g, '\\$&');
  const pattern = new RegExp(
    `^http_server_request_duration_seconds_count\\{[^}]*http_route="${escaped}"[^}]*http_response_status_code="${status}"[^}]*\\} (\\d+)$`,
    'm',
  );
  return Number(pattern.exec(metrics)?.[1] ?? 0);
}

const requestLine = (path: string) =>
  lines.find((line) => line.event === 'http.request' && line.path === path);

describe('a product route’s failure, counted and logged under its own route', () => {
  it.each([
    ['/products/7', 500, '/products/[id]'],
    ['/blog/gone', 404, '/blog/[slug]'],
    ['/api/fails', 500, '/api/fails'],
    ['/broken', 500, '/broken'],
  ])('%s: %i under %s, on /metrics and in its request line', (path, status, route) => {
    expect(statuses[path]).toBe(status);
    expect(requestLine(path)).toEqual(expect.objectContaining({ route, status }));
    // (/products/7 and /products/8: two of the page's failures, one series.)
    expect(counted(route, status)).toBe(path === '/products/7' ? 2 : 1);
  });

  it('counts none of them under Next’s error pages', () => {
    expect(counted('/_error', 500)).toBe(0);
    expect(counted('/500', 500)).toBe(0);
    expect(counted('/404', 404)).toBe(0);
  });
});

describe('one server error, one log line', () => {
  const errorLine = (route: string) =>
    lines.filter((line) => line.event === 'server.error' && line.route === route);

  it('is one server.error line with the cause chain: why the fetch failed', () => {
    const [line] = errorLine('/products/[id]');
    expect(line).toEqual(
      expect.objectContaining({
        message: 'The product API could not be reached for product 7',
        status: 500,
        method: 'GET',
      }),
    );
    expect(line!.cause).toEqual(
      expect.objectContaining({
        type: 'TypeError',
        message: 'fetch failed',
        cause: expect.objectContaining({ code: 'ECONNREFUSED' }),
      }),
    );
    expect(requestLine('/products/7')!.reference).toBe(line!.reference);
    // /products/8 is an error of its own, with its own line.
    expect(errorLine('/products/[id]').map(({ message }) => message)).toEqual([
      'The product API could not be reached for product 7',
      'The product API could not be reached for product 8',
    ]);
  });

  it('has a stack naming the page’s source file with a line number', () => {
    const [line] = errorLine('/products/[id]');
    expect(line!.stack).toMatch(/pages\/products\/\[id\]\.tsx:\d+:\d+/);
    const [broken] = errorLine('/broken');
    expect(broken!.stack).toMatch(/pages\/broken\.tsx:\d+:\d+/);
  });

  it('carries the API route’s error and its own cause', () => {
    const [line, ...more] = errorLine('/api/fails');
    expect(more).toEqual([]);
    expect(line).toEqual(expect.objectContaining({ message: 'The fails route failed' }));
    expect(line!.cause).toEqual({ type: 'Error', message: 'its own cause' });
    expect(line!.stack).toMatch(/pages\/api\/fails\.ts:\d+:\d+/);
  });

  it('has no console line of Next’s printing the same errors', () => {
    const printed = lines.filter(
      (line) =>
        line.event === 'console' &&
        /fetch failed|could not be reached|The fails route failed|The broken page failed to render/.test(
          line.message ?? '',
        ),
    );
    expect(printed).toEqual([]);
    expect(lines.filter((line) => line.event === 'server.error')).toHaveLength(4);
  });
});
