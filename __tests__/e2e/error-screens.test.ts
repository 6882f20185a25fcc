// The production build's error screens in a real browser.
import type { Browser } from 'playwright-core';
import { accessibilityViolations } from '../support/axe';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { rawRequest } from '../support/http';
import { PRODUCTION_DIST } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ distDir: PRODUCTION_DIST }), launchBrowser()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
});

const MALFORMED = ['/%', '/%E0%A4%A', '/a%00b'];

describe('a missing page', () => {
  it('shows the not-found screen with status 404, its own title, and nothing else going wrong', async () => {
    const watched = await openWatchedPage(browser);
    const response = await watched.page.goto(`${server.url}/no/such/page?x=1`);
    expect(response?.status()).toBe(404);
    await expect(watched.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe(
      'Page not found',
    );
    expect(await watched.page.title()).toBe('Page not found – This service');
    expect(await watched.page.getAttribute('html', 'lang')).toBe('en');
    // The "go back" control appears once JavaScript runs.
    await watched.page.getByRole('button', { name: 'Go back to the previous page' }).waitFor();
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    expect(watched.requests.filter((url) => !url.startsWith(server.url))).toEqual([]);
    await watched.close();
  });

  it('is prerendered: the HTML is served from the static 404 without running page code', async () => {
    const res = await rawRequest(server.url, '/missing');
    expect(res.status).toBe(404);
    expect(res.body).toContain('"nextExport":true');
    expect(res.body).toContain('Page not found');
  });

  it('renders with JavaScript disabled', async () => {
    const watched = await openWatchedPage(browser, { javaScriptEnabled: false });
    const response = await watched.page.goto(`${server.url}/missing`);
    expect(response?.status()).toBe(404);
    expect(await watched.page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await watched.page.getByText('If you typed the web address, check it is correct.').count()).toBe(
      1,
    );
    await watched.close();
  });

  it.each(['light', 'dark'] as const)('has no accessibility violations in %s mode', async (colorScheme) => {
    const watched = await openWatchedPage(browser, { colorScheme });
    await watched.page.goto(`${server.url}/missing`);
    await watched.page.getByRole('button', { name: 'Go back to the previous page' }).waitFor();
    expect(await accessibilityViolations(watched.page)).toEqual([]);
    await watched.close();
  });

  it('shows a visible focus indicator on its controls', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/missing`);
    const back = watched.page.getByRole('button', { name: 'Go back to the previous page' });
    await back.waitFor();
    const before = await back.evaluate((el) => getComputedStyle(el).backgroundColor);
    await watched.page.keyboard.press('Tab');
    expect(await back.evaluate((el) => el === document.activeElement)).toBe(true);
    const after = await back.evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(after).not.toBe(before);
    await watched.close();
  });
});

describe('malformed URLs', () => {
  it.each(MALFORMED)('%s gets a 4xx error screen, never a 500', async (path) => {
    const res = await rawRequest(server.url, path);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(res.body).toMatch(
      /<h1[^>]*>(Page not found|Sorry, this web address or request cannot be used)<\/h1>/,
    );
  });

  it.each(MALFORMED)('%s shows the screen in the browser with no console errors', async (path) => {
    const watched = await openWatchedPage(browser);
    const response = await watched.page.goto(`${server.url}${path}`);
    expect(response?.status()).toBeGreaterThanOrEqual(400);
    expect(response?.status()).toBeLessThan(500);
    await watched.page.getByRole('heading', { level: 1 }).waitFor();
    expect(watched.consoleErrors).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    expect(await accessibilityViolations(watched.page)).toEqual([]);
    await watched.close();
  });
});
