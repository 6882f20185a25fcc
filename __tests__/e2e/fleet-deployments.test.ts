// A rolling update between two builds made with next.config's `deploymentId` (Next's skew
// protection), behind one round-robin balancer with no affinity, FLEET_PEERS naming both. Next gives
// every such build one constant build id, so the manifests and data of both sit under the same
// names; only `?dpl=<id>` on a file and `x-deployment-id` on a data request tell them apart. Each
// visit must be whole: every file and every page's data from the build that made its page
// (docs/fleet.md).
import type { Browser, Page } from 'playwright-core';
import { clientException } from '@lib/screens/en/client-exception';
import { type Balancer, startBalancer } from '../support/balancer';
import { launchBrowser } from '../support/browser';
import {
  buildProduct,
  NEXT_DEPLOYMENT,
  PARITY_PRODUCTS,
  prebuiltProduct,
  type ProductConfig,
} from '../support/product-build';
import { freePort, type RunningServer, startServer } from '../support/server';
import { until } from '../support/until';
import { rmSync } from 'node:fs';
import { VARIABLES } from '@lib/config/variables';
import { REFRESH_MS } from '@lib/fleet/directory';

const FIRST = PARITY_PRODUCTS.find((product) => product.name === 'deployment-id')!;
/** The deployment each slot's build was made with (support/product-build.ts). */
const DEPLOYMENTS = { a: 'deploy-one', b: 'deploy-two' } as const;
const VISITS = 12;

let browser: Browser;
let balancer: Balancer;
const servers: Partial<Record<'a' | 'b', RunningServer>> = {};
const built: string[] = [];

/** The product's build folder: made before the tests, or now (then removed after). */
function productDir(product: ProductConfig): string {
  const before = prebuiltProduct(product.name);
  if (before) return before;
  const dir = buildProduct(product);
  built.push(dir);
  return dir;
}

/** One unlabelled sample of `name` in `server`'s /metrics; NaN when absent. */
async function sample(server: RunningServer, name: string): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${server.managementPort}/metrics`).then(
    (res) => (res.ok ? res.text() : ''),
    () => '',
  );
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return Number(line?.slice(name.length + 1) ?? NaN);
}

beforeAll(async () => {
  const dirs = { a: productDir(FIRST), b: productDir(NEXT_DEPLOYMENT) };
  const ports = { a: await freePort(), b: await freePort() };
  const peers = Object.values(ports)
    .map((port) => `http://127.0.0.1:${port}`)
    .join(',');
  for (const slot of ['a', 'b'] as const)
    servers[slot] = await startServer({
      distDir: '.next',
      root: dirs[slot],
      port: ports[slot],
      env: { FLEET_PEERS: peers },
    });
  balancer = await startBalancer({ a: `http://127.0.0.1:${ports.a}`, b: `http://127.0.0.1:${ports.b}` });
  // Each knows the other once it has asked it: B asks A as it starts (A then asks B within a
  // second, perhaps before B listens) and both ask again every REFRESH_MS, each ask bounded by the
  // fleet's fetch timeout. Three refreshes' worth on a machine busy with other tests, then the
  // failure says what each instance saw.
  const bound = 3 * (REFRESH_MS + VARIABLES.fleetFetchTimeoutMs.fallback({}));
  const joined = async () =>
    (await sample(servers.a!, 'app_fleet_other_builds')) === 1 &&
    (await sample(servers.b!, 'app_fleet_other_builds')) === 1;
  await until(joined, bound, 100).catch(async () => {
    const seen = await Promise.all(
      (['a', 'b'] as const).map(
        async (slot) =>
          `${slot}: app_fleet_other_builds ${await sample(servers[slot]!, 'app_fleet_other_builds')}, ` +
          `app_fleet_peers ${await sample(servers[slot]!, 'app_fleet_peers')}\n` +
          servers[slot]!.output().split('\n').slice(-20).join('\n'),
      ),
    );
    throw new Error(`the two instances did not know each other within ${bound} ms:\n${seen.join('\n')}`);
  });
  browser = await launchBrowser();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await balancer?.stop();
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  for (const dir of built) rmSync(dir, { recursive: true, force: true });
});

interface Visit {
  page: Page;
  /** What went wrong with the page's own requests for Next's files and data. */
  wrong: string[];
  documents: () => number;
  /** The deployment of the page the tab shows. */
  deployment: () => string;
  close: () => Promise<void>;
}

/**
 * A tab that checks every answer under /_next/ against the deployment of the page it shows (the
 * build of the instance that answered its document): a file asked with another `dpl`, an answer of
 * 400 or more, or data that says it is of another deployment (on which Next's router would load the
 * page again) is wrong.
 */
async function openVisit(): Promise<Visit> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const wrong: string[] = [];
  let documents = 0;
  let shown = '';
  const deployment = () => shown;
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (response.request().isNavigationRequest() && response.request().frame() === page.mainFrame()) {
      documents += 1;
      const servedBy = response.headers()['x-served-by'] ?? '';
      shown = DEPLOYMENTS[servedBy as 'a' | 'b'] ?? `unknown (${servedBy})`;
    }
    if (!url.pathname.startsWith('/_next/') || url.pathname.startsWith('/_next/app-shell/')) return;
    const what = `${response.status()} ${url.pathname}${url.search}`;
    if (response.status() >= 400) wrong.push(what);
    if (url.pathname.startsWith('/_next/static/') && url.searchParams.get('dpl') !== deployment())
      wrong.push(`${what}: asked as another deployment's`);
    const answeredAs = response.headers()['x-nextjs-deployment-id'];
    if (url.pathname.startsWith('/_next/data/') && answeredAs !== deployment())
      wrong.push(`${what}: answered by ${answeredAs}`);
  });
  return { page, wrong, documents: () => documents, deployment, close: () => context.close() };
}

/**
 * Navigates client-side to a blog post no link names, so none was prefetched: its data is asked
 * now. True once its heading shows (after a load of the whole page, too).
 */
async function openPost(page: Page, slug: string): Promise<boolean> {
  type Router = { push: (href: string) => unknown };
  await page
    .evaluate((href) => (window as { next?: { router?: Router } }).next!.router!.push(href), `/blog/${slug}`)
    // A navigation that loads the whole page ends this page's scripts before the promise settles.
    .catch(() => {});
  return page
    .getByRole('heading', { name: slug })
    .waitFor({ timeout: 10_000 })
    .then(
      () => true,
      () => false,
    );
}

/** Whether Next's router has hydrated the page (it sets `window.next` then). */
function hydrated(page: Page): Promise<boolean> {
  return page
    .waitForFunction(() => Boolean((window as { next?: { router?: unknown } }).next?.router), null, {
      timeout: 10_000,
    })
    .then(
      () => true,
      () => false,
    );
}

/** Clicks the link named `name` and waits for the heading `heading`: true if it showed. */
async function navigate(page: Page, name: string, heading: string): Promise<boolean> {
  await page.getByRole('link', { name }).click();
  return page
    .getByRole('heading', { name: heading })
    .waitFor({ timeout: 10_000 })
    .then(
      () => true,
      () => false,
    );
}

/** Round robin over two: the balancer's next answer comes from the instance `last` is not. */
async function nextAnswerNotFrom(last: string): Promise<void> {
  for (let probe = 0; probe < 2; probe += 1) {
    const res = await fetch(`${balancer.url}/api/health/live`);
    if (res.headers.get('x-served-by') === last) return;
  }
}

it(`serves ${VISITS} of ${VISITS} visits whole while both deploymentId builds serve`, async () => {
  const outcomes: string[] = [];
  const servedBy = new Set<string>();
  let last = '';
  for (let i = 0; i < VISITS; i += 1) {
    await nextAnswerNotFrom(last);
    const visit = await openVisit();
    const answer = await visit.page.goto(`${balancer.url}/`);
    last = answer?.headers()['x-served-by'] ?? '';
    servedBy.add(last);
    // Client-side navigations: each asks the page's chunk, and the blog post its data, of one of
    // the two instances at random, and the other build's instance must find them on its peer.
    const whole =
      (await hydrated(visit.page)) &&
      (await navigate(visit.page, 'The blog', 'hello')) &&
      (await visit.page.goBack().then(() => true)) &&
      (await navigate(visit.page, 'About', 'About')) &&
      (await openPost(visit.page, `visit-${i}`)) &&
      visit.documents() === 1 &&
      visit.wrong.length === 0 &&
      (await visit.page.getByRole('heading', { name: clientException.heading }).count()) === 0;
    outcomes.push(
      whole
        ? 'whole'
        : `visit ${i} (${visit.deployment()}): documents ${visit.documents()}, ${visit.wrong.join('; ')}`,
    );
    await visit.close();
  }
  expect(servedBy).toEqual(new Set(['a', 'b']));
  expect(outcomes.filter((outcome) => outcome !== 'whole')).toEqual([]);
  expect(outcomes).toHaveLength(VISITS);
}, 300_000);

it("sends a tab of the old build, once its last instance stops, to the new build's page with one load", async () => {
  // A tab of deploy-one, hydrated while both serve.
  let tab: Visit | undefined;
  for (let tries = 0; !tab && tries < 8; tries += 1) {
    const visit = await openVisit();
    const answer = await visit.page.goto(`${balancer.url}/`);
    if (answer?.headers()['x-served-by'] === 'a' && (await hydrated(visit.page))) tab = visit;
    else {
      await visit.close();
      await fetch(`${balancer.url}/api/health/live`);
    }
  }
  expect(tab).toBeDefined();
  await servers.a!.stop();
  await until(
    async () => (await fetch(`${balancer.url}/api/health/ready`)).headers.get('x-served-by') === 'b',
    10_000,
    100,
  );
  // The post's data can only come from deploy-two now, which says so: Next's router loads that
  // page whole from deploy-two instead of mixing the two builds.
  expect(await openPost(tab!.page, 'after-the-update')).toBe(true);
  expect([tab!.documents(), tab!.deployment()]).toEqual([2, DEPLOYMENTS.b]);
  expect(await tab!.page.getByRole('heading', { name: clientException.heading }).count()).toBe(0);
  await tab!.close();
}, 120_000);
