// Debian's Chromium driven by playwright-core (this machine cannot download Playwright's browsers).
import { type Browser, type BrowserContextOptions, chromium, type Page, type Request } from 'playwright-core';
import type { SdkLoadedEvent } from '@lib/reporting/browser/types';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../scripts/lib/chromium';

export { CHROMIUM_ARGS };

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface WatchedPage {
  page: Page;
  /**
   * Console errors, leaving out the one line Chromium always logs for a document answered with an
   * error status ("Failed to load resource: … status of 404"): that is the status under test, not
   * a fault of the page.
   */
  consoleErrors: string[];
  pageErrors: string[];
  /** Every URL the page requested. */
  requests: string[];
  /** How many of the page's requests whose URL passes `test` have had no answer (and not failed) yet. */
  inFlight: (test: (url: string) => boolean) => number;
  cspViolations: () => Promise<string[]>;
  close: () => Promise<void>;
}

/**
 * A page that records console errors, uncaught errors, requests and CSP violations, and whether the
 * lazily loaded error-reporting SDK has announced itself (`window.__sdkLoaded`).
 */
export async function openWatchedPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  // Runs through the DevTools protocol, so the page's CSP does not apply to it.
  await context.addInitScript((sdkLoadedEvent) => {
    const seen: string[] = [];
    const recorded = window as unknown as { __cspViolations: string[]; __sdkLoaded?: boolean };
    recorded.__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
    // Registered before the page's own listener, so this runs first; the reporter starts the SDK
    // in the same dispatch, before the test's next command can reach the page.
    document.addEventListener(sdkLoadedEvent, () => {
      recorded.__sdkLoaded = true;
    });
  }, 'app-shell:sdk-loaded' satisfies SdkLoadedEvent);
  const page = await context.newPage();
  // CSP violations as Chromium logs them, through the DevTools protocol: this works with JavaScript
  // off too, where no listener in the page can run.
  const cspLogged: string[] = [];
  const devtools = await context.newCDPSession(page);
  devtools.on('Log.entryAdded', ({ entry }) => {
    if (/Content Security Policy/.test(entry.text)) cspLogged.push(entry.text);
  });
  await devtools.send('Log.enable');
  const consoleErrors: string[] = [];
  const pageErrors: string[] = [];
  const requests: string[] = [];
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const isDocumentStatus =
      /^Failed to load resource: the server responded with a status of \d+/.test(message.text()) &&
      message.location().url === page.url();
    if (!isDocumentStatus) consoleErrors.push(`${message.text()} (${message.location().url})`);
  });
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('request', (request) => requests.push(request.url()));
  const pending = new Set<Request>();
  page.on('request', (request) => pending.add(request));
  // Answered is enough: Chromium reports no 'requestfinished' for keepalive fetches (the SDK's).
  page.on('response', (response) => pending.delete(response.request()));
  page.on('requestfinished', (request) => pending.delete(request));
  page.on('requestfailed', (request) => pending.delete(request));
  return {
    page,
    consoleErrors,
    pageErrors,
    requests,
    inFlight: (test) => [...pending].filter((request) => test(request.url())).length,
    cspViolations: async () => [
      ...cspLogged,
      ...(options.javaScriptEnabled === false
        ? []
        : await page.evaluate(
            () => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? [],
          )),
    ],
    close: () => context.close(),
  };
}
