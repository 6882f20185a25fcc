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
    // No JavaScript at all: no script element, no script requested, and so no control that needs one.
    expect(await watched.page.evaluate(() => document.scripts.length)).toBe(0);
    expect(watched.requests.filter((url) => /\.js(\?|$)/.test(url))).toEqual([]);
    expect(await watched.page.getByRole('button').count()).toBe(0);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self';");
    expect(watched.consoleErrors).toEqual([]);
    expect(watched.pageErrors).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    expect(watched.requests.filter((url) => !url.startsWith(server.url))).toEqual([]);
    await watched.close();
  });

  it('is prerendered: the HTML is served from the static 404, with no script of any kind', async () => {
    const res = await rawRequest(server.url, '/missing');
    expect(res.status).toBe(404);
    expect(res.body).toContain('Page not found');
    expect(res.body).not.toMatch(/<script/i);
  });

  it('renders with JavaScript disabled', async () => {
    const watched = await openWatchedPage(browser, { javaScriptEnabled: false });
    const response = await watched.page.goto(`${server.url}/missing`);
    expect(response?.status()).toBe(404);
    expect(await watched.page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    expect(await watched.page.getByText('If you typed the web address, check it is correct.').count()).toBe(
      1,
    );
    expect(await watched.page.getByRole('button').count()).toBe(0);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });

  it.each(['light', 'dark'] as const)('has no accessibility violations in %s mode', async (colorScheme) => {
    const watched = await openWatchedPage(browser, { colorScheme });
    await watched.page.goto(`${server.url}/missing`);
    await watched.page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(await accessibilityViolations(watched.page)).toEqual([]);
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
