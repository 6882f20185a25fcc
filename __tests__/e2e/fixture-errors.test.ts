// Error paths that need a page to fail, against the test build that adds the fixture pages.
import type { Browser } from 'playwright-core';
import { accessibilityViolations } from '../support/axe';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { FIXTURE_DIST } from '../support/paths';
import { type RunningServer, startServer } from '../support/server';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ distDir: FIXTURE_DIST }), launchBrowser()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
});

describe('the _app error boundary', () => {
  it('shows the fallback on a client render error and "try again" recovers', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/__fixtures__/render-error`);
    await watched.page.getByRole('button', { name: 'Break the page' }).click();
    await watched.page.getByRole('heading', { level: 1, name: 'Sorry, this page stopped working' }).waitFor();
    expect(await watched.page.title()).toBe('Sorry, this page stopped working – This service');
    expect(await accessibilityViolations(watched.page)).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.page.getByRole('button', { name: 'Try again' }).click();
    await watched.page.getByText('The fixture page is working.').waitFor();
    expect(await watched.page.getByRole('heading', { level: 1 }).textContent()).toBe('Render error fixture');
    await watched.close();
  });
});

describe('a server render error', () => {
  it('answers 500 with the service-problem screen and a retry link, JavaScript off', async () => {
    const watched = await openWatchedPage(browser, { javaScriptEnabled: false });
    const response = await watched.page.goto(`${server.url}/__fixtures__/server-error?attempt=1`);
    expect(response?.status()).toBe(500);
    expect(await watched.page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Sorry, there is a problem with the service',
    );
    expect(await watched.page.getByRole('link', { name: 'Try again' }).getAttribute('href')).toBe(
      '/__fixtures__/server-error?attempt=1',
    );
    expect(await watched.page.content()).not.toMatch(/Fixture server render error|at .*\.js/);
    // Controls that need JavaScript are not offered when it is off; the retry link works without.
    expect(await watched.page.getByRole('button').count()).toBe(0);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });

  it('goes out private, no-store, though the page said public before it failed: no cache serves its reference to others', async () => {
    const answer = await fetch(`${server.url}/__fixtures__/server-error?public`);
    expect(answer.status).toBe(500);
    expect(answer.headers.get('cache-control')).toBe('private, no-store');
    await answer.text();
  });

  it('shows the 4xx screen with JavaScript off: no button, no CSP violation', async () => {
    const watched = await openWatchedPage(browser, { javaScriptEnabled: false });
    const response = await watched.page.goto(`${server.url}/__fixtures__/bad-request`);
    expect(response?.status()).toBe(400);
    expect(await watched.page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Sorry, this web address or request cannot be used',
    );
    expect(await watched.page.getByRole('button').count()).toBe(0);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });

  it('has no accessibility violations, console errors beyond the 500 itself, or CSP violations', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/__fixtures__/server-error`);
    await watched.page.getByRole('link', { name: 'Try again' }).waitFor();
    // Rendered by the server with no JavaScript (pages/_error.tsx): the browser's Back is the way back.
    expect(await watched.page.evaluate(() => document.scripts.length)).toBe(0);
    expect(await watched.page.getByRole('button').count()).toBe(0);
    expect(await accessibilityViolations(watched.page)).toEqual([]);
    expect(watched.consoleErrors).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });
});

describe('a 4xx other than 404', () => {
  it('shows its own wording and passes axe', async () => {
    const watched = await openWatchedPage(browser);
    const response = await watched.page.goto(`${server.url}/__fixtures__/bad-request`);
    expect(response?.status()).toBe(400);
    expect(await watched.page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Sorry, this web address or request cannot be used',
    );
    await watched.page.getByRole('button', { name: 'Go back to the previous page' }).waitFor();
    expect(await accessibilityViolations(watched.page)).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });
});

describe('a client-side exception outside the boundary', () => {
  it('shows a page that offers to reload, never the framework text', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/__fixtures__/client-navigation`);
    await watched.page.getByRole('link', { name: 'Open the page that fails in the browser' }).click();
    await watched.page.getByRole('heading', { level: 1, name: 'Sorry, this page stopped working' }).waitFor();
    await watched.page.getByRole('button', { name: 'Reload the page' }).waitFor();
    expect(await watched.page.content()).not.toContain('Application error');
    expect(await accessibilityViolations(watched.page)).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });
});

describe('a next/link navigation to a route that does not exist', () => {
  it('ends on "Page not found" with status 404', async () => {
    const watched = await openWatchedPage(browser);
    await watched.page.goto(`${server.url}/__fixtures__/link-to-missing`);
    const documentAnswer = watched.page.waitForResponse(
      (response) =>
        response.request().resourceType() === 'document' && response.url().includes('/no/such/route'),
    );
    await watched.page.getByRole('link', { name: 'Go to a page that does not exist' }).click();
    expect((await documentAnswer).status()).toBe(404);
    await watched.page.getByRole('heading', { level: 1, name: 'Page not found' }).waitFor();
    expect(new URL(watched.page.url()).pathname).toBe('/no/such/route');
    expect(watched.pageErrors).toEqual([]);
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });
});

describe('an error screen with controls', () => {
  it('shows a visible focus indicator on them', async () => {
    const watched = await openWatchedPage(browser);
    // The "cannot be used" screen (a 400) offers a way back once JavaScript runs.
    await watched.page.goto(`${server.url}/__fixtures__/bad-request`);
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
