// A rolling update as an operator runs one: two builds of the app serving side by side behind one
// round-robin balancer with no affinity (what a Kubernetes Service does while a Deployment rolls),
// FLEET_PEERS naming both, the new build carrying the old one's files (KEEP_STATIC_FROM). Visitors
// must never notice: every visit whole, old tabs going on after their build stops, and a file gone
// everywhere costing one reload, never the error screen (docs/fleet.md).
import type { Browser, Locator, Page } from 'playwright-core';
import { clientException } from '@lib/screens/en/client-exception';
import { type Balancer, startBalancer } from '../support/balancer';
import { launchBrowser } from '../support/browser';
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { FIXTURE_DIST, FLEET_B_DIST, FLEET_C_DIST } from '../support/paths';
import { freePort, type RunningServer, startServer } from '../support/server';
import { until } from '../support/until';

/** Build B: the same app as A (the fixture build), another build id, carrying A's files. */
const B_DIST = FLEET_B_DIST;
/** Build C: another release built without the previous image's files, as when none is given. */
const C_DIST = FLEET_C_DIST;
const FRESH_VISITS = 24;
const OLD_TABS = 3;
const PAGE = '/__fixtures__/fleet';

let browser: Browser;
const running: { stop: () => Promise<unknown> }[] = [];

beforeAll(async () => {
  buildUnlessKept(B_DIST, plannedEnv(B_DIST));
  buildUnlessKept(C_DIST, plannedEnv(C_DIST));
  browser = await launchBrowser();
}, 240_000);

afterAll(async () => {
  await Promise.all(running.map((thing) => thing.stop()));
  await browser?.close();
});

/** Three instances' ports, chosen up front: the balancer has a slot for each, as a Service has. */
let ports: Record<'a' | 'b' | 'c', number>;
let balancer: Balancer;

/** One instance on its slot, with FLEET_PEERS naming every slot (itself included, some not running). */
async function startInstance(slot: 'a' | 'b' | 'c', distDir: string): Promise<RunningServer> {
  const peers = Object.values(ports)
    .map((port) => `http://127.0.0.1:${port}`)
    .join(',');
  const server = await startServer({ distDir, port: ports[slot], env: { FLEET_PEERS: peers } });
  running.push(server);
  return server;
}

/** A scrape of `server`'s /metrics ('' when it does not answer). */
function scrape(server: RunningServer): Promise<string> {
  return fetch(`http://127.0.0.1:${server.managementPort}/metrics`).then(
    (res) => (res.ok ? res.text() : ''),
    () => '',
  );
}

/** One unlabelled sample of `name` in a scrape; NaN when absent. */
function sample(text: string, name: string): number {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${name} `));
  return Number(line?.slice(name.length + 1) ?? NaN);
}

interface Visit {
  page: Page;
  /** Answers of 400 and above for Next's files (/_next/…). */
  failedFiles: string[];
  /** Documents loaded in this tab: 1 unless it reloaded or navigated hard. */
  documents: () => number;
  close: () => Promise<void>;
}

async function openVisit(): Promise<Visit> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const failedFiles: string[] = [];
  let documents = 0;
  page.on('response', (response) => {
    const { pathname } = new URL(response.url());
    if (pathname.startsWith('/_next/') && response.status() >= 400)
      failedFiles.push(`${response.status()} ${pathname}`);
    if (response.request().isNavigationRequest() && response.request().frame() === page.mainFrame())
      documents += 1;
  });
  return { page, failedFiles, documents: () => documents, close: () => context.close() };
}

/** Clicks the counter until the page answers: true once its code has hydrated it. */
async function hydrates(page: Page): Promise<boolean> {
  // A click on the server's HTML before React has hydrated it does nothing, so a page that has
  // just (re)loaded is clicked again, within 10 s, until its counter moves; moved once, it reads 1.
  const counter = page.getByRole('button', { name: /^Clicked \d+ times$/ });
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    await counter.click();
    const clicked = page.getByRole('button', { name: 'Clicked 1 times' });
    if (
      await clicked.waitFor({ timeout: 2000 }).then(
        () => true,
        () => false,
      )
    )
      return true;
  }
  return false;
}

/** Whether `locator` shows within 10 s. */
function shows(locator: Locator): Promise<boolean> {
  return locator.waitFor({ timeout: 10_000 }).then(
    () => true,
    () => false,
  );
}

async function showsErrorScreen(page: Page): Promise<boolean> {
  return (await page.getByRole('heading', { name: clientException.heading }).count()) > 0;
}

describe('two builds behind one round-robin balancer', () => {
  let a: RunningServer;
  let b: RunningServer;

  beforeAll(async () => {
    const [pa, pb, pc] = await Promise.all([freePort(), freePort(), freePort()]);
    ports = { a: pa!, b: pb!, c: pc! };
    a = await startInstance('a', FIXTURE_DIST);
    b = await startInstance('b', B_DIST);
    // C's slot stays down (the balancer's check takes it out) until the last test starts it.
    balancer = await startBalancer(
      Object.fromEntries(Object.entries(ports).map(([slot, port]) => [slot, `http://127.0.0.1:${port}`])),
    );
    running.push(balancer);
    // Each knows the other by now: B asked A at its start, and A asks again when asked.
    await until(
      async () =>
        sample(await scrape(a), 'app_fleet_peers') === 1 && sample(await scrape(b), 'app_fleet_peers') === 1,
      10_000,
      100,
    );
  }, 60_000);

  /** What each instance said of its peers (a 503 for a build file says why in `fleet.peer_failed`). */
  const fleetLines = () =>
    Object.entries({ a, b })
      .map(
        ([slot, server]) =>
          `${slot}: ${server
            .output()
            .split('\n')
            .filter((line) => line.includes('"fleet.'))
            .join(' ')}`,
      )
      .join('; ');

  /** Round robin over two: the balancer's next answer comes from the instance `last` is not. */
  async function nextAnswerNotFrom(last: string): Promise<void> {
    for (let probe = 0; probe < 2; probe += 1) {
      const res = await fetch(`${balancer.url}/api/health/live`);
      if (res.headers.get('x-served-by') === last) return;
    }
  }

  /** Tabs opened on build A's HTML, kept open across the update. */
  const oldTabs: Visit[] = [];

  it(`serves ${FRESH_VISITS} of ${FRESH_VISITS} fresh visits whole: hydrated, lazy part, client-side navigation`, async () => {
    const outcomes: string[] = [];
    const servedBy = new Set<string>();
    let last = '';
    for (let i = 0; i < FRESH_VISITS; i += 1) {
      // Each visit's page from the other build: how many requests a visit makes (its files, the
      // service worker's script) must not decide which build every page comes from.
      await nextAnswerNotFrom(last);
      const visit = await openVisit();
      const answer = await visit.page.goto(`${balancer.url}${PAGE}`);
      last = answer?.headers()['x-served-by'] ?? '';
      servedBy.add(last);
      const hydrated = await hydrates(visit.page);
      await visit.page.getByRole('button', { name: 'Show the lazy part' }).click();
      const lazy = await shows(visit.page.getByText('The lazy part loaded.'));
      await visit.page.getByRole('link', { name: 'Open the server-rendered page' }).click();
      const navigated = await shows(visit.page.getByRole('heading', { name: 'Server-rendered fixture' }));
      const whole =
        hydrated &&
        lazy &&
        navigated &&
        visit.documents() === 1 &&
        visit.failedFiles.length === 0 &&
        !(await showsErrorScreen(visit.page));
      outcomes.push(
        whole
          ? 'whole'
          : `visit ${i}: hydrated ${hydrated}, lazy ${lazy}, navigated ${navigated}, documents ${visit.documents()}, failed ${visit.failedFiles.join(' ')}; ${fleetLines()}`,
      );
      await visit.close();
    }
    // Both builds answered pages, so visits met the other build's instance for their files.
    expect(servedBy).toEqual(new Set(['a', 'b']));
    expect(outcomes.filter((outcome) => outcome !== 'whole')).toEqual([]);
    expect(outcomes).toHaveLength(FRESH_VISITS);
  }, 240_000);

  it(`keeps ${OLD_TABS} of ${OLD_TABS} tabs of the old build going after its last instance stops`, async () => {
    // Tabs whose HTML build A rendered, hydrated before the update.
    for (let tries = 0; oldTabs.length < OLD_TABS && tries < 4 * OLD_TABS; tries += 1) {
      const visit = await openVisit();
      const answer = await visit.page.goto(`${balancer.url}${PAGE}`);
      if (answer?.headers()['x-served-by'] === 'a' && (await hydrates(visit.page))) oldTabs.push(visit);
      else {
        await visit.close();
        // A visit makes as many requests each time, so round robin can give B every page: one
        // request more moves the next page on by one.
        await fetch(`${balancer.url}/api/health/live`);
      }
    }
    expect(oldTabs).toHaveLength(OLD_TABS);

    // The update ends: A's last instance stops, and only B serves.
    await a.stop();
    await until(
      async () => (await fetch(`${balancer.url}/api/health/ready`)).headers.get('x-served-by') === 'b',
      10_000,
      100,
    );

    const outcomes: string[] = [];
    for (const [i, tab] of oldTabs.entries()) {
      await tab.page.getByRole('button', { name: 'Show the lazy part' }).click();
      const lazy = await shows(tab.page.getByText('The lazy part loaded.'));
      // Without a reload: the tab's own state (the counter) is still there.
      const sameDocument =
        tab.documents() === 1 &&
        (await tab.page.getByRole('button', { name: 'Clicked 1 times' }).count()) === 1;
      await tab.page.getByRole('link', { name: 'Open the server-rendered page' }).click();
      const reached = await shows(tab.page.getByRole('heading', { name: 'Server-rendered fixture' }));
      const ok = lazy && sameDocument && reached && !(await showsErrorScreen(tab.page));
      outcomes.push(
        ok ? 'went on' : `tab ${i}: lazy ${lazy}, same document ${sameDocument}, reached ${reached}`,
      );
    }
    expect(outcomes.filter((outcome) => outcome !== 'went on')).toEqual([]);
    expect(outcomes).toHaveLength(OLD_TABS);
  }, 120_000);

  it('recovers a tab whose lazy part is gone everywhere with one reload, never the error screen, and never loops', async () => {
    // A tab of B; then B is replaced by C, built without B's files (no previous image given).
    let tab: Visit | undefined;
    for (let tries = 0; !tab && tries < 4; tries += 1) {
      const visit = await openVisit();
      await visit.page.goto(`${balancer.url}${PAGE}`);
      if (await hydrates(visit.page)) tab = visit;
      else await visit.close();
    }
    expect(tab).toBeDefined();
    const page = tab!.page;
    const c = await startInstance('c', C_DIST);
    await b.stop();
    await until(
      async () => (await fetch(`${balancer.url}/api/health/ready`)).headers.get('x-served-by') === 'c',
      10_000,
      100,
    );

    await page.getByRole('button', { name: 'Show the lazy part' }).click();
    // The page reloads itself once, from C, and works: its counter starts again from 0.
    await until(() => tab!.documents() === 2, 10_000, 100);
    expect(await hydrates(page)).toBe(true);
    expect(await showsErrorScreen(page)).toBe(false);
    // The reload said so: operators see it counted, and no error was reported.
    await until(async () => sample(await scrape(c), 'app_client_lost_file_reloads_total') === 1, 5000, 100);

    // Its files gone again this soon (every lazy chunk refused now): no second reload, no screen.
    await page.route('**/_next/static/chunks/*.js', (route) =>
      /\/chunks\/\d+\./.test(route.request().url()) ? route.fulfill({ status: 404 }) : route.continue(),
    );
    await page.getByRole('button', { name: 'Show the lazy part' }).click();
    await page.waitForTimeout(2000);
    expect(tab!.documents()).toBe(2);
    expect(await showsErrorScreen(page)).toBe(false);
    expect(sample(await scrape(c), 'app_client_lost_file_reloads_total')).toBe(1);
    await tab!.close();
  }, 120_000);
});
