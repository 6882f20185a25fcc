// Without SENTRY_DSN, the default on a fresh machine: no Sentry code reaches browsers, nothing
// goes out, and each server error is one JSON line on stderr.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { rawRequest } from '../support/http';
import { FIXTURE_DIST, PRODUCTION_DIST, ROOT } from '../support/paths';
import { type RunningServer, startServer, waitForOutput } from '../support/server';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ distDir: FIXTURE_DIST }), launchBrowser()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
});

describe('without SENTRY_DSN', () => {
  it('builds no SDK file at all', () => {
    for (const dist of [PRODUCTION_DIST, FIXTURE_DIST]) {
      const chunks = readdirSync(path.join(ROOT, dist, 'static/chunks'));
      expect(chunks.filter((name) => name.startsWith('reporting-'))).toEqual([]);
    }
  });

  it('sends nothing from the browser, even when a page breaks', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/__fixtures__/render-error`);
    await watched.page.waitForLoadState('load');
    await watched.page.getByRole('button', { name: 'Break the page' }).click();
    await watched.page.getByRole('heading', { name: 'Sorry, this page stopped working' }).waitFor();
    // The point at which a build with a DSN would load the SDK: the reporter asks for an idle
    // callback once the page has loaded (timeout 3 s). One asked for now runs after it.
    await watched.page.evaluate(
      () => new Promise<void>((resolve) => requestIdleCallback(() => resolve(), { timeout: 3000 })),
    );
    await watched.page.waitForLoadState('networkidle');
    const own = (url: string) =>
      url.startsWith(`${server.url}/_next/`) || url.startsWith(`${server.url}/__fixtures__/`);
    expect(watched.requests.filter((url) => !own(url) && !url.endsWith('/favicon.ico'))).toEqual([]);
    expect(watched.requests.filter((url) => url.includes('reporting-'))).toEqual([]);
    await watched.close();
  });

  it('writes each server error as one JSON line with reference, time, route, method, status, message and stack', async () => {
    const response = await rawRequest(server.url, '/__fixtures__/server-error', { method: 'GET' });
    expect(response.status).toBe(500);
    const reference = response.body.match(/data-reference="([0-9a-f]{32})"/)?.[1];
    expect(reference).toBeDefined();
    // A barrier: the line for an error caused after this one comes after this one's line(s).
    expect((await rawRequest(server.url, '/api/__fixtures__/marker?id=off', { method: 'GET' })).status).toBe(
      500,
    );
    await waitForOutput(server, /Fixture marker off/);
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"event":"server.error"'))
      .map((line) => JSON.parse(line));
    const mine = lines.filter((line) => line.reference === reference);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toEqual(
      expect.objectContaining({
        time: expect.any(String),
        level: 'error',
        route: '/__fixtures__/server-error',
        method: 'GET',
        status: 500,
        message: 'Fixture server render error',
        stack: expect.stringContaining('Fixture server render error'),
      }),
    );
  });
});
