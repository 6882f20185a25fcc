// Debian's Chromium driven by playwright-core (this machine cannot download Playwright's browsers).
import { type Browser, type BrowserContextOptions, chromium, type Page } from 'playwright-core';
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
  cspViolations: () => Promise<string[]>;
  close: () => Promise<void>;
}

/** A page that records console errors, uncaught errors, requests and CSP violations. */
export async function openWatchedPage(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<WatchedPage> {
  const context = await browser.newContext(options);
  // Runs through the DevTools protocol, so the page's CSP does not apply to it.
  await context.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __cspViolations: string[] }).__cspViolations = seen;
    document.addEventListener('securitypolicyviolation', (event) => {
      seen.push(`${event.violatedDirective} ${event.blockedURI}`);
    });
  });
  const page = await context.newPage();
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
  return {
    page,
    consoleErrors,
    pageErrors,
    requests,
    cspViolations: async () =>
      options.javaScriptEnabled === false
        ? []
        : page.evaluate(() => (window as unknown as { __cspViolations?: string[] }).__cspViolations ?? []),
    close: () => context.close(),
  };
}
