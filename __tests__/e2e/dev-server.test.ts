/**
 * `npm run dev` as a product team first meets it: a clean checkout (this repository's files, with
 * the installed node_modules beside them and nothing built), a product page added, then the pages,
 * the error screens, Next's overlay and hot reload in Chromium, compiled by Turbopack as bare
 * `next dev` compiles, and by webpack where reports from development need it. The suite runs on Node 24 and
 * Node 22 (.ci/run); the dev server here runs on the Node running the tests.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { startServerProcess, type ServerProcess } from '../../scripts/lib/server-process';
import { shareInstall } from '../../scripts/lib/shared-install';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { type Ingest, startIngest } from '../support/ingest';
import { ROOT } from '../support/paths';
import { freePort } from '../support/server';
import { until } from '../support/until';

// The first compile of each page takes seconds on two cores.
jest.setTimeout(240_000);

const PRODUCT_PAGE = `import { useState } from 'react';

export default function BarsDev() {
  const [count, setCount] = useState(0);
  return (
    <main>
      <h1>Bars in development</h1>
      <button type="button" onClick={() => setCount(count + 1)}>
        Counted {count}
      </button>
    </main>
  );
}
`;

const THROWING_PAGE = `export default function ThrowsDev(): never {
  throw new Error('thrown on purpose while developing');
}

export const getServerSideProps = () => ({ props: {} });
`;

/** This repository's files as a clean clone has them (tracked, plus new files not ignored), nothing built. */
function cleanCheckout(): string {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed: ${listed.stderr}`);
  const checkout = mkdtempSync(path.join(os.tmpdir(), 'app-shell-dev-'));
  for (const file of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(ROOT, file);
    // A tracked file deleted in the working tree is gone from the checkout too.
    if (!existsSync(from)) continue;
    mkdirSync(path.dirname(path.join(checkout, file)), { recursive: true });
    cpSync(from, path.join(checkout, file));
  }
  // What `npm ci` installed for the README's test command, shared rather than installed again,
  // as a folder of the checkout's own, as a clean checkout has it (scripts/lib/shared-install.js).
  shareInstall(checkout, path.join(ROOT, 'node_modules'));
  return checkout;
}

/** The environment a newcomer's shell has, with this Node first on PATH (so Node 24 runs Node 24). */
function newcomerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ''}`,
    NEXT_TELEMETRY_DISABLED: '1',
    ...extra,
  };
  // Set by the test runner, never by a newcomer's shell.
  for (const name of ['NODE_ENV', 'NEXT_DIST_DIR', 'JEST_WORKER_ID', 'NODE_OPTIONS']) delete env[name];
  return env;
}

/** `npm start` as typed: its exit code, and what it printed. */
function npmStart(cwd: string) {
  const result = spawnSync('npm', ['start'], {
    cwd,
    env: newcomerEnv({ PORT: '0', MANAGEMENT_PORT: '0', HOST: '127.0.0.1' }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  const lines = (text: string | null) => (text ?? '').split('\n').filter((line) => line.trim() !== '');
  return { status: result.status, stdout: lines(result.stdout), stderr: lines(result.stderr) };
}

/** What a newcomer must see when `npm start` has nothing to start: one line, the fix in it, no stack. */
function expectOneLineSayingBuildFirst(result: ReturnType<typeof npmStart>) {
  expect(result.status).not.toBe(0);
  expect(result.status).not.toBeNull();
  // npm's own banner ("> next-app-shell@… start", "> exec node …") is npm's; the rest is ours.
  const ours = [...result.stdout.filter((line) => !line.startsWith('> ')), ...result.stderr];
  expect(ours).toHaveLength(1);
  expect(ours[0]).toMatch(/run `npm run build` first/);
  expect(ours.join('\n')).not.toMatch(/^\s+at /m);
}

/** `npm run dev` in the checkout, with a DSN pointing at the test's ingest, as a team's .env may carry. */
function npmRunDev(extra: Record<string, string>): Promise<ServerProcess> {
  return startServerProcess({
    command: 'npm',
    args: ['run', 'dev'],
    cwd: checkout,
    env: newcomerEnv({
      HOST: '127.0.0.1',
      SENTRY_DSN: `http://publickey@127.0.0.1:${ingest.port}/1`,
      ...extra,
    }) as Record<string, string>,
    readyPath: '/api/health/live',
    timeoutMs: 180_000,
  });
}

let checkout: string;
let server: ServerProcess;
let browser: Browser;
let ingest: Ingest;
let checkoutBuiltBeforeDev: boolean;
let startBeforeBuild: ReturnType<typeof npmStart>;

beforeAll(async () => {
  checkout = cleanCheckout();
  checkoutBuiltBeforeDev =
    existsSync(path.join(checkout, 'dist')) || existsSync(path.join(checkout, '.next'));
  startBeforeBuild = npmStart(checkout);
  writeFileSync(path.join(checkout, 'pages/bars-dev.tsx'), PRODUCT_PAGE);
  writeFileSync(path.join(checkout, 'pages/throws-dev.tsx'), THROWING_PAGE);
  // A development server must send nothing to it (SENTRY_IN_DEVELOPMENT unset).
  ingest = await startIngest(await freePort());
  server = await npmRunDev({});
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await ingest?.stop();
  if (checkout) rmSync(checkout, { recursive: true, force: true });
});

it('starts from a checkout with nothing built', () => {
  expect(checkoutBuiltBeforeDev).toBe(false);
});

it('says in one line to build first when `npm start` has no build', () => {
  expectOneLineSayingBuildFirst(startBeforeBuild);
});

it('compiles with Turbopack, as bare `next dev` does, and says no word of a bundler', async () => {
  const watched = await openWatchedPage(browser);
  try {
    await watched.page.goto(`${server.url}/bars-dev`);
    // Turbopack's runtime keeps its chunks under this global; webpack's under `webpackChunk…`.
    expect(await watched.page.evaluate(() => 'TURBOPACK' in globalThis)).toBe(true);
  } finally {
    await watched.close();
  }
  expect(server.output()).not.toContain('server.dev_bundler');
});

it('serves a product page, with its heading', async () => {
  const response = await fetch(`${server.url}/bars-dev`);
  expect(response.status).toBe(200);
  expect(await response.text()).toContain('<h1>Bars in development</h1>');
});

it('answers an unknown path 404 with "Page not found"', async () => {
  const response = await fetch(`${server.url}/no-such-page-here`);
  expect(response.status).toBe(404);
  expect(await response.text()).toMatch(/<h1[^>]*>Page not found<\/h1>/);
});

it('answers /api/health 200', async () => {
  const response = await fetch(`${server.url}/api/health`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/health\+json/);
  // Compiling in dev delays the server's own event loop, so its delay check may well warn.
  expect(['pass', 'warn']).toContain(((await response.json()) as { status: string }).status);
});

it('shows a page that throws as a 500 with Next’s overlay and its stack, and sends no report', async () => {
  const watched = await openWatchedPage(browser);
  try {
    const response = await watched.page.goto(`${server.url}/throws-dev`);
    expect(response?.status()).toBe(500);
    // The overlay lives in a shadow root under <nextjs-portal>; Playwright's locators reach into it.
    await watched.page.locator('nextjs-portal').waitFor({ state: 'attached', timeout: 60_000 });
    await expect(
      watched.page.getByText('thrown on purpose while developing').first().waitFor({ timeout: 60_000 }),
    ).resolves.toBeUndefined();
    await expect(
      watched.page
        .getByText(/pages[\\/]throws-dev\.tsx/)
        .first()
        .waitFor({ timeout: 30_000 }),
    ).resolves.toBeUndefined();
  } finally {
    await watched.close();
  }
  // One line in the log for it, and nothing sent: reports from dev only with SENTRY_IN_DEVELOPMENT=1.
  await until(
    () => /"event":"server\.error"[^\n]*thrown on purpose while developing/.test(server.output()),
    10_000,
  );
  const reported = server
    .output()
    .split('\n')
    .filter((line) => line.includes('"event":"server.error"') && line.includes('thrown on purpose'));
  expect(reported).toHaveLength(1);
  expect(ingest.envelopes).toHaveLength(0);
});

it('hydrates a product page, and brings an edit by hot reload, in the same document with its state', async () => {
  const watched = await openWatchedPage(browser);
  const { page } = watched;
  // Turbopack's dev server tells the page, over its hot-reload socket, when a round of compiling
  // ends ("built"); the first one after the page subscribes to its chunks is when the page is
  // watched. An edit saved before it is lost on a loaded machine (the subscription starts from the
  // edited file, so no update is sent): a developer saves seconds later, so the test waits for it.
  let builtRounds = 0;
  page.on('websocket', (socket) =>
    socket.on('framereceived', ({ payload }) => {
      if (/^\{"type":"built"/.test(String(payload))) builtRounds += 1;
    }),
  );
  try {
    await page.goto(`${server.url}/bars-dev`);
    const button = page.getByRole('button', { name: /Counted/ });
    // A click changes the count only once React has hydrated the page.
    await until(
      async () => {
        await button.click();
        return /Counted [1-9]/.test(await button.innerText());
      },
      60_000,
      250,
    );
    const counted = await button.innerText();
    await page.evaluate(() => {
      (window as unknown as { __sameDocument: boolean }).__sameDocument = true;
    });

    await until(() => builtRounds > 0, 60_000);
    const file = path.join(checkout, 'pages/bars-dev.tsx');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('Bars in development', 'Bars, edited while running'),
    );
    await page.getByRole('heading', { name: 'Bars, edited while running' }).waitFor({ timeout: 60_000 });

    expect(
      await page.evaluate(() => (window as unknown as { __sameDocument?: boolean }).__sameDocument),
    ).toBe(true);
    expect(await page.evaluate(() => performance.getEntriesByType('navigation').length)).toBe(1);
    // Fast Refresh keeps a component's state across an edit that leaves its hooks alone.
    expect(await button.innerText()).toBe(counted);
    expect(watched.pageErrors).toEqual([]);
    // Nothing refused or missing either: no reporting file is asked for without reports. But for
    // one line of Next's own: its Turbopack dev server answers a script of the page's,
    // _clientMiddlewareManifest.js, with a JSON body (`[]`, application/json) that no browser runs
    // to any effect (the client reads the matchers from _devMiddlewareManifest.json), and which
    // Chromium, told `nosniff` as every answer of the shell's, says it refused.
    expect(
      watched.consoleErrors.filter(
        (line) =>
          !/^Refused to execute script from '[^']*\/_next\/static\/development\/_clientMiddlewareManifest\.js' because its MIME type \('application\/json'\)/.test(
            line,
          ),
      ),
    ).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    // No service worker in development: the page, long loaded, registered none.
    expect(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length)).toBe(
      0,
    );
  } finally {
    await watched.close();
  }
});

it('answers the service worker’s path with the worker that unregisters itself, for one a production server left', async () => {
  const response = await fetch(`${server.url}/_next/app-shell/worker.js`);
  expect(response.status).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-cache');
  const script = await response.text();
  expect(script).toContain('"on":false');
  expect(script).not.toContain('data-screen');
});

it('shows "Page not found" in the browser for an unknown path', async () => {
  const watched = await openWatchedPage(browser);
  try {
    const response = await watched.page.goto(`${server.url}/another/unknown/path`);
    expect(response?.status()).toBe(404);
    await watched.page.getByRole('heading', { name: 'Page not found' }).waitFor({ timeout: 30_000 });
  } finally {
    await watched.close();
  }
});

it('says in one line to build first when `npm start` finds only the dev server’s output', async () => {
  expect(await server.stop()).toBe(0);
  expect(existsSync(path.join(checkout, 'dist/lib/server/start.js'))).toBe(true);
  expectOneLineSayingBuildFirst(npmStart(checkout));
});

it('reports from dev when SENTRY_IN_DEVELOPMENT=1 asks, the browser’s SDK included', async () => {
  const loud = await npmRunDev({ SENTRY_IN_DEVELOPMENT: '1' });
  const watched = await openWatchedPage(browser);
  try {
    expect((await fetch(`${loud.url}/throws-dev`)).status).toBe(500);
    await ingest.waitFor(() => ingest.eventsWithMessage('thrown on purpose while developing')[0], 30_000);
    expect(ingest.eventsWithMessage('thrown on purpose while developing')[0]).toMatchObject({
      environment: 'development',
    });
    // The browser's SDK is a webpack entry of its own, so this session compiles with webpack, and
    // says so in one line; the SDK must still compile and load.
    const said = loud
      .output()
      .split('\n')
      .filter((line) => line.includes('"event":"server.dev_bundler"'));
    expect(said).toHaveLength(1);
    expect(JSON.parse(said[0] as string)).toMatchObject({
      bundler: 'webpack',
      message: expect.stringMatching(/not Turbopack: SENTRY_IN_DEVELOPMENT=1 .*docs\/development\.md/),
    });
    await watched.page.goto(`${loud.url}/bars-dev`);
    expect(await watched.page.evaluate(() => 'TURBOPACK' in globalThis)).toBe(false);
    await until(
      () =>
        watched.page.evaluate(() => (window as unknown as { __sdkLoaded?: boolean }).__sdkLoaded === true),
      60_000,
      100,
    );
  } finally {
    await watched.close();
    expect(await loud.stop()).toBe(0);
  }
});
