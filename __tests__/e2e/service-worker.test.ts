/**
 * The service worker (lib/service-worker/): in Chromium, behind Debian's HAProxy, a visitor who
 * loses the network or meets every instance down sees the shell's screen, never the browser's or
 * the balancer's, and gets the page back by itself. The worker serves nothing from a cache, a new
 * build's worker replaces the old one, two builds side by side do not make a visitor flip between
 * their workers, and SERVICE_WORKER=off takes it away again.
 */
import { LANGUAGE_COPY } from '@lib/screens/languages';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { CACHE_PREFIX } from '@lib/service-worker/script';
import { startBalancer, type Balancer } from '../support/balancer';
import { launchBrowser, openWatchedPage, type WatchedPage } from '../support/browser';
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { FIXTURE_DIST, REPORTING_DIST, ROOT, WORKER_OFF_DIST } from '../support/paths';
import { freePort, startServer, type RunningServer } from '../support/server';
import { until } from '../support/until';

/** The fixture build again with SERVICE_WORKER=off: the off switch. */
const OFF_DIST = WORKER_OFF_DIST;
const PAGE = '/__fixtures__/fleet';
const SERVER_PAGE = '/__fixtures__/fleet/server';
/** The promise: back within 15 s of the network or the server. */
const BACK_WITHIN_MS = 15_000;

let browser: Browser;
const running = new Set<RunningServer>();
const visitors = new Set<WatchedPage>();

beforeAll(async () => {
  buildUnlessKept(OFF_DIST, plannedEnv(OFF_DIST));
  browser = await launchBrowser();
}, 240_000);

afterEach(async () => {
  for (const visitor of visitors) await visitor.close();
  visitors.clear();
  for (const server of running) await server.stop();
  running.clear();
});

afterAll(async () => {
  await browser?.close();
});

async function serve(
  distDir: string,
  port?: number,
  env: Record<string, string> = {},
): Promise<RunningServer> {
  const server = await startServer({ distDir, env, ...(port ? { port } : {}) });
  running.add(server);
  return server;
}

async function stop(server: RunningServer): Promise<void> {
  await server.stop();
  running.delete(server);
}

async function visitor(): Promise<WatchedPage> {
  const watched = await openWatchedPage(browser);
  visitors.add(watched);
  return watched;
}

/** The build (id) whose worker controls the origin, from its cache's name; '' for none. */
function workerBuild(page: Page): Promise<string> {
  return page.evaluate(async (prefix) => {
    const own = (await caches.keys()).filter((name) => name.startsWith(prefix) && !name.endsWith('seen'));
    return own.map((name) => name.slice(prefix.length).replace(/^\d+-/, '')).join(',');
  }, CACHE_PREFIX);
}

/** Waits until the page's worker is active, after the page's load (when it registers). */
async function workerActive(page: Page): Promise<void> {
  await page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    const worker = registration.active!;
    if (worker.state !== 'activated')
      await new Promise((resolve) => worker.addEventListener('statechange', resolve));
  });
}

/** The fixture page, hydrated (its button counts clicks), with the worker active. */
async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('button', { name: 'Clicked 0 times' }).click();
  await page.getByRole('button', { name: 'Clicked 1 times' }).waitFor();
  await workerActive(page);
}

/** A scrape of the server's /metrics ('' when it does not answer). */
const metricsOf = (server: RunningServer) =>
  fetch(`http://127.0.0.1:${server.managementPort}/metrics`).then(
    (res) => res.text(),
    () => '',
  );

const buildIdOf = (distDir: string) => readFileSync(path.join(ROOT, distDir, 'BUILD_ID'), 'utf8').trim();
const workerTimeOf = (distDir: string) =>
  Number(/"time":(\d+)/.exec(readFileSync(path.join(ROOT, distDir, 'service-worker/en.js'), 'utf8'))![1]);

/** Milliseconds until `locator` shows, at most BACK_WITHIN_MS. */
async function timeUntilShown(page: Page, selector: string): Promise<number> {
  const start = performance.now();
  await page.locator(selector).waitFor({ timeout: BACK_WITHIN_MS });
  return Math.round(performance.now() - start);
}

describe('behind HAProxy', () => {
  let balancer: Balancer;
  let server: RunningServer;
  let port: number;

  beforeEach(async () => {
    port = await freePort();
    server = await serve(FIXTURE_DIST, port);
    balancer = await startBalancer(
      { app: server.url },
      { errorPages: path.join(ROOT, FIXTURE_DIST, 'error-pages') },
    );
  });

  afterEach(async () => {
    await balancer.stop();
  });

  it('when the network is gone: the offline screen for a reload, an address never visited and a click on a link; back by itself when it returns', async () => {
    const { page, cspViolations } = await visitor();
    const context = page.context();
    const shown: string[] = [];
    await openPage(page, `${balancer.url}${PAGE}`);

    // 1. A reload.
    await context.setOffline(true);
    const reloaded = await page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    await page.locator('main[data-screen="offline"]').waitFor();
    await page.getByRole('heading', { name: 'You are not connected to the internet' }).waitFor();
    shown.push('reload');
    await context.setOffline(false);
    const reloadBack = await timeUntilShown(page, `main[data-build="${buildIdOf(FIXTURE_DIST)}"]`);
    expect(page.url()).toBe(`${balancer.url}${PAGE}`);

    // 2. An address never visited.
    await context.setOffline(true);
    await page.goto(`${balancer.url}/orders/never-visited`);
    await page.locator('main[data-screen="offline"]').waitFor();
    shown.push('never visited');
    await context.setOffline(false);
    // It does not exist: back means Next's own "Page not found".
    const missingBack = await timeUntilShown(page, 'main[data-screen="not-found"]');

    // 3. A click on a link: Next's data request fails, and it navigates hard.
    await openPage(page, `${balancer.url}${PAGE}`);
    await context.setOffline(true);
    await page.getByRole('link', { name: 'Open the server-rendered page' }).click();
    await page.locator('main[data-screen="offline"]').waitFor();
    expect(page.url()).toBe(`${balancer.url}${SERVER_PAGE}`);
    shown.push('client navigation');
    await context.setOffline(false);
    const linkBack = await timeUntilShown(page, 'h1:text("Server-rendered fixture")');

    expect(shown).toHaveLength(3);
    expect(await cspViolations()).toEqual([]);
    process.stdout.write(
      `[service-worker] offline: 3 of 3 ours; back in ${reloadBack}, ${missingBack}, ${linkBack} ms\n`,
    );

    // Counted when the visitor was back: one beacon per screen seen, so three offline screens in
    // three separate outages are three.
    await until(
      async () => (await metricsOf(server)).includes('app_client_outage_screens_total{screen="offline"} 3'),
      5_000,
      100,
    );
  });

  it('offline throughout: a reload of a visited page, then an address never visited, both get the offline screen, not the unavailable one; back by itself when the network returns', async () => {
    const { page } = await visitor();
    const context = page.context();
    await openPage(page, `${balancer.url}${PAGE}`);

    await context.setOffline(true);
    const reloaded = await page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    expect(await page.locator('main[data-screen]').getAttribute('data-screen')).toBe('offline');

    // Still offline. After that navigation Chromium's navigator.onLine reads true again, in the
    // page and in the worker, while the network stays cut: the worker must not take it at its word.
    const typed = await page.goto(`${balancer.url}/orders/never-visited`);
    expect(typed?.fromServiceWorker()).toBe(true);
    expect(await page.locator('main[data-screen]').getAttribute('data-screen')).toBe('offline');

    await context.setOffline(false);
    // It does not exist: back means Next's own "Page not found", at the address typed.
    await timeUntilShown(page, 'main[data-screen="not-found"]');
    expect(page.url()).toBe(`${balancer.url}/orders/never-visited`);
  });

  it('keeps its screens in the visitor’s language: an Arabic visitor offline gets the Arabic screen, right to left', async () => {
    const watched = await openWatchedPage(browser, {
      locale: 'ar',
      extraHTTPHeaders: { 'Accept-Language': 'ar' },
    });
    visitors.add(watched);
    const { page } = watched;
    await openPage(page, `${balancer.url}${PAGE}`);
    await page.context().setOffline(true);
    await page.reload();
    const { screens } = LANGUAGE_COPY.ar!;
    await page.locator('main[data-screen="offline"][lang="ar"][dir="rtl"]').waitFor();
    await page.getByRole('heading', { name: screens.offline.heading }).waitFor();
    expect(await page.getAttribute('html', 'dir')).toBe('rtl');
    await page.context().setOffline(false);
  });

  it('when every instance is down: the unavailable screen for a visited page (the worker’s) and a first visit (the balancer’s); back by themselves', async () => {
    const visited = await visitor();
    await openPage(visited.page, `${balancer.url}${PAGE}`);

    await stop(server);
    await until(
      async () => (await fetch(`${balancer.url}/api/health/live`).then((res) => res.status)) === 503,
      10_000,
      50,
    );

    // The visitor who has been here: the worker's screen, which brings the page back with a script.
    const reloaded = await visited.page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    expect(reloaded?.status()).toBe(503);
    await visited.page.locator('main[data-screen="unavailable"]').waitFor();
    expect(await visited.page.locator('script').count()).toBe(1);

    // A first visit: no worker yet, so the balancer's own page (no JavaScript, a meta refresh).
    const newcomer = await visitor();
    const first = await newcomer.page.goto(`${balancer.url}${SERVER_PAGE}`);
    expect(first?.fromServiceWorker()).toBe(false);
    expect(first?.status()).toBe(503);
    await newcomer.page.locator('main[data-screen="unavailable"]').waitFor();
    expect(await newcomer.page.locator('script').count()).toBe(0);

    server = await serve(FIXTURE_DIST, port);
    const visitedBack = await timeUntilShown(visited.page, `main[data-build="${buildIdOf(FIXTURE_DIST)}"]`);
    const newcomerBack = await timeUntilShown(newcomer.page, 'h1:text("Server-rendered fixture")');
    expect(await visited.cspViolations()).toEqual([]);
    process.stdout.write(
      `[service-worker] server down: 2 of 2 ours; back in ${visitedBack} (worker), ${newcomerBack} (balancer) ms\n`,
    );
    await until(
      async () =>
        (await metricsOf(server)).includes('app_client_outage_screens_total{screen="unavailable"} 1'),
      5_000,
      100,
    );
  });

  it('shows the app’s own answers as they are: its own 503 is not the balancer’s, and a server error stays its screen', async () => {
    const { page } = await visitor();
    await openPage(page, `${balancer.url}${PAGE}`);
    const own503 = await page.goto(`${balancer.url}/__fixtures__/busy-503`);
    expect(own503?.fromServiceWorker()).toBe(true);
    expect(own503?.status()).toBe(503);
    await page.getByRole('heading', { name: 'Orders are paused for maintenance' }).waitFor();
    expect(await page.locator('main[data-screen]').count()).toBe(0);
    const response = await page.goto(`${balancer.url}/__fixtures__/server-error`);
    expect(response?.status()).toBe(500);
    await page.locator('main[data-screen="server-error"]').waitFor();
  });
});

it('never answers from a cache: pages, data, API answers and files all come from the network', async () => {
  const server = await serve(FIXTURE_DIST);
  const { page } = await visitor();
  await openPage(page, `${server.url}${PAGE}`);
  await page.getByRole('link', { name: 'Open the server-rendered page' }).click();
  await page.getByRole('heading', { name: 'Server-rendered fixture' }).waitFor();
  await page.goto(`${server.url}/api/health`);
  await page.goto(`${server.url}${PAGE}`);
  const cached = await page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys())
      for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
    return urls;
  });
  expect(cached).toEqual([]);
});

it('a new build’s worker replaces the old one on the next visit', async () => {
  const [older, newer] = [FIXTURE_DIST, REPORTING_DIST].sort((a, b) => workerTimeOf(a) - workerTimeOf(b));
  const port = await freePort();
  let server = await serve(older!, port);
  const { page } = await visitor();
  await openPage(page, `${server.url}${PAGE}`);
  expect(await workerBuild(page)).toBe(buildIdOf(older!));

  await stop(server);
  server = await serve(newer!, port);
  await page.goto(`${server.url}${PAGE}`);
  await until(async () => (await workerBuild(page)) === buildIdOf(newer!), 10_000, 100);
});

it('two builds behind one balancer (a rolling update): the newer build’s worker takes over without reloading the page, and stays', async () => {
  const [older, newer] = [FIXTURE_DIST, REPORTING_DIST].sort((a, b) => workerTimeOf(a) - workerTimeOf(b));
  const [olderId, newerId] = [buildIdOf(older!), buildIdOf(newer!)];
  // As in a real rolling update, each answers for the other's build files (lib/fleet/).
  const ports = [await freePort(), await freePort()];
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  const env = { FLEET_PEERS: urls.join(',') };
  await serve(older!, ports[0], env);
  // The newer build's instance is not up yet: the balancer's checks keep it out until it is.
  const balancer = await startBalancer({ a: urls[0]!, b: urls[1]! });
  const update = (page: Page) =>
    page.evaluate(() =>
      navigator.serviceWorker.ready.then((registration) => registration.update()).catch(() => {}),
    );
  try {
    const { page } = await visitor();
    await openPage(page, `${balancer.url}${PAGE}`);
    expect(await workerBuild(page)).toBe(olderId);
    await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    // The rollout starts: from now on every request goes to the two builds in turn.
    await serve(newer!, ports[1], env);
    await until(
      async () => {
        await update(page);
        return (await workerBuild(page)) === newerId;
      },
      10_000,
      100,
    );
    // The worker changed under the open page, which was not reloaded and still works.
    expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await page.getByRole('button', { name: 'Clicked 1 times' }).click();
    await page.getByRole('button', { name: 'Clicked 2 times' }).waitFor();

    // Every navigation and update check meets one build or the other: the newer worker stays.
    const seen: string[] = [];
    for (let visit = 0; visit < 8; visit += 1) {
      await page.goto(`${balancer.url}${visit % 2 ? PAGE : SERVER_PAGE}`);
      await update(page);
      seen.push(await workerBuild(page));
    }
    expect(seen).toEqual(Array(8).fill(newerId));
    process.stdout.write(
      `[service-worker] rolling update: the newer build's worker in ${seen.length} of ${seen.length} visits after it took over\n`,
    );
  } finally {
    await balancer.stop();
  }
});

it('SERVICE_WORKER=off: the worker a visitor has unregisters itself and deletes its caches; pages register none', async () => {
  const port = await freePort();
  let server = await serve(FIXTURE_DIST, port);
  const { page } = await visitor();
  await openPage(page, `${server.url}${PAGE}`);
  expect(await workerBuild(page)).toBe(buildIdOf(FIXTURE_DIST));

  await stop(server);
  server = await serve(OFF_DIST, port);
  await page.goto(`${server.url}${PAGE}`);
  const registrations = () =>
    page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length);
  await until(async () => (await registrations()) === 0, 10_000, 100);
  expect(await page.evaluate(async () => caches.keys())).toEqual([]);

  // Its pages register nothing.
  await page.reload();
  await page.getByRole('button', { name: 'Clicked 0 times' }).waitFor();
  await page.waitForTimeout(1000);
  expect(await registrations()).toBe(0);
});
