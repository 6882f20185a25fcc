// Every error screen in the visitor's language: the server's by Accept-Language (the 404 from
// memory, the 500 and the 4xx rendered without JavaScript), the browser's by navigator.languages
// (a client exception), against the test build that adds the fixture pages.
import type { Browser } from 'playwright-core';
import { LANGUAGE_COPY } from '@lib/screens/languages';
import { accessibilityViolations } from '../support/axe';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { rawRequest } from '../support/http';
import { FIXTURE_DIST } from '../support/paths';
import { type RunningServer, startServer, waitForOutput } from '../support/server';

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ distDir: FIXTURE_DIST }), launchBrowser()]);
});

afterAll(async () => {
  await Promise.all([browser?.close(), server?.stop()]);
});

const LANGUAGES = [
  ['fr', 'fr-CH, fr;q=0.9, en;q=0.5'],
  ['de', 'de'],
  ['es', 'es-419, es;q=0.8'],
  ['ar', 'ar'],
] as const;

/** What a server-rendered screen must be: in `language`, varying on the header, with no JavaScript. */
function expectScreen(
  answer: { status: number; headers: Record<string, unknown>; body: string },
  language: string,
  kind: 'not-found' | 'server-error' | 'bad-request',
) {
  const { common, screens } = LANGUAGE_COPY[language]!;
  expect(answer.body).toMatch(new RegExp(`^<!DOCTYPE html><html lang="${language}" dir="${common.dir}">`));
  expect(answer.body).toContain(`<h1 class="es-heading">${screens[kind].heading}</h1>`);
  for (const paragraph of screens[kind].paragraphs) expect(answer.body).toContain(paragraph);
  expect(String(answer.headers.vary)).toMatch(/(^|, ?)Accept-Language(,|$)/);
  expect(answer.headers['content-language']).toBe(language);
  expect(answer.body).not.toMatch(/<script/i);
}

describe('the server’s screens, by Accept-Language', () => {
  it.each(LANGUAGES)('%s: "Page not found", a 404 with no JavaScript', async (language, header) => {
    const answer = await rawRequest(server.url, '/no/such/page', { headers: { 'accept-language': header } });
    expect(answer.status).toBe(404);
    expectScreen(answer, language, 'not-found');
  });

  it.each(LANGUAGES)(
    '%s: the server error, a 500 with no JavaScript, a retry link and the reference its one report carries',
    async (language, header) => {
      const answer = await rawRequest(server.url, `/__fixtures__/server-error?lang=${language}`, {
        headers: { 'accept-language': header },
      });
      expect(answer.status).toBe(500);
      expectScreen(answer, language, 'server-error');
      const { common } = LANGUAGE_COPY[language]!;
      expect(answer.body).toContain(
        `<a class="es-button" href="/__fixtures__/server-error?lang=${language}">${common.tryAgain}</a>`,
      );
      const reference = answer.body.match(/data-reference="([0-9a-f]{32})"/)?.[1];
      expect(reference).toBeDefined();
      // Without a DSN, the report is the server's JSON line: exactly one carries this reference.
      await waitForOutput(server, new RegExp(`"reference":"${reference}"`));
      const reports = server
        .output()
        .split('\n')
        .filter(
          (line) => line.includes('"event":"server.error"') && line.includes(`"reference":"${reference}"`),
        );
      expect(reports).toHaveLength(1);
      expect(JSON.parse(reports[0]!)).toMatchObject({ route: '/__fixtures__/server-error', status: 500 });
    },
  );

  it.each(LANGUAGES)(
    '%s: the bad-request screen, for an address with too many parameters',
    async (language, header) => {
      const query = Array.from({ length: 300 }, (_, i) => `p${i}=1`).join('&');
      const answer = await rawRequest(server.url, `/search?${query}`, {
        headers: { 'accept-language': header },
      });
      expect(answer.status).toBe(414);
      expectScreen(answer, language, 'bad-request');
    },
  );

  it('gives a missing, `*`, unknown or hostile header English, byte for byte the plain 404', async () => {
    const plain = await rawRequest(server.url, '/no/such/page');
    expect(plain.headers.vary).toBe('Accept-Encoding, Accept-Language');
    expectScreen(plain, 'en', 'not-found');
    // As many ranges as fit in the headers the server takes (16 KiB): the bound cuts it short.
    const hostile = Array.from({ length: 1000 }, (_, i) => `x${i}-y;q=0.${i % 10}`).join(',') + ',fr';
    for (const header of ['*', 'xx-YY, zz;q=0.8', 'fr;q=0', ';;;,,,q=', hostile]) {
      const answer = await rawRequest(server.url, '/no/such/page', {
        headers: { 'accept-language': header },
      });
      expect(answer.status).toBe(404);
      expect(answer.body).toBe(plain.body);
    }
  });
});

describe('the browser’s screen, by navigator.languages', () => {
  it.each([
    ['fr-FR', 'fr', 'ltr'],
    ['ar', 'ar', 'rtl'],
  ] as const)(
    'a visitor in %s meets a client exception in their language, passing axe',
    async (locale, language, dir) => {
      const { common, screens } = LANGUAGE_COPY[language]!;
      const watched = await openWatchedPage(browser, { locale });
      await watched.page.goto(`${server.url}/__fixtures__/render-error`);
      await watched.page.waitForLoadState('networkidle');
      await watched.page.getByRole('button', { name: 'Break the page' }).click();
      const heading = watched.page.getByRole('heading', {
        level: 1,
        name: screens['client-exception'].heading,
      });
      await heading.waitFor();
      const main = watched.page.getByRole('main');
      expect(await main.getAttribute('lang')).toBe(language);
      expect(await main.getAttribute('dir')).toBe(dir);
      expect(await watched.page.title()).toBe(`${screens['client-exception'].heading} – This service`);
      // The boundary's "try again" re-renders: its words are the language's own.
      await watched.page.getByRole('button', { name: common.tryAgain }).waitFor();
      expect(await accessibilityViolations(watched.page)).toEqual([]);
      expect(await watched.cspViolations()).toEqual([]);
      await watched.close();
    },
  );

  it('a visitor in fr-FR meets an exception outside the boundary (Next’s own error page) in French', async () => {
    const { common, screens } = LANGUAGE_COPY.fr!;
    const watched = await openWatchedPage(browser, { locale: 'fr-FR' });
    await watched.page.goto(`${server.url}/__fixtures__/client-navigation`);
    await watched.page.waitForLoadState('networkidle');
    await watched.page.getByRole('link', { name: 'Open the page that fails in the browser' }).click();
    await watched.page
      .getByRole('heading', { level: 1, name: screens['client-exception'].heading })
      .waitFor();
    await watched.page.getByRole('button', { name: common.reload }).waitFor();
    expect(await watched.page.getByRole('main').getAttribute('lang')).toBe('fr');
    await watched.close();
  });

  it('right-to-left, the 404 and the 500 pass axe in a browser', async () => {
    const watched = await openWatchedPage(browser, { locale: 'ar' });
    for (const [path, status] of [
      ['/no/such/page', 404],
      ['/__fixtures__/server-error', 500],
    ] as const) {
      const response = await watched.page.goto(`${server.url}${path}`);
      expect(response?.status()).toBe(status);
      expect(await watched.page.getAttribute('html', 'dir')).toBe('rtl');
      expect(await watched.page.evaluate(() => document.scripts.length)).toBe(0);
      expect(await accessibilityViolations(watched.page)).toEqual([]);
    }
    expect(await watched.cspViolations()).toEqual([]);
    await watched.close();
  });
});
