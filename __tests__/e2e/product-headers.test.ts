// A product's headers() and the shell's CSP, in production, on the example product
// (examples/product/, whose next.config.ts adds `x-product-team` everywhere, its own Referrer-Policy
// over the shell's, and an API Cache-Control and CSP). Where the shell answers in Next's place, the
// visitor gets the headers bare `next start` on the same build would send; and a page's React style
// attributes and next/image apply under the shell's CSP, with no violation and no inline script.
import http from 'node:http';
import { rmSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { launchBrowser, openWatchedPage } from '../support/browser';
import { buildProduct, PARITY_PRODUCTS, prebuiltProduct, startBareNext } from '../support/product-build';
import { type RunningServer, startServer } from '../support/server';

/** Headers about one answer's body, its connection or its caching, which differ by design. */
const PER_ANSWER = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'content-encoding',
  'content-language',
  'transfer-encoding',
  'etag',
  'vary',
  // Every error answer is private, no-store (lib/http/private-errors.ts); probes say no-store.
  'cache-control',
]);

/** A query of more parameters than the shell lets reach Next: the shell's 414, Next's page. */
const TOO_MANY = `/?${Array.from({ length: 1200 }, (_, at) => `p${at}=1`).join('&')}`;

/** What the shell answers in Next's place (health, 404s, the 414, its own paths), and one Next answers. */
const TARGETS = [
  '/api/health',
  '/api/health/live',
  '/api/missing',
  '/missing',
  TOO_MANY,
  '/_next/app-shell/worker.js',
  '/about',
];

function headersOf(origin: string, target: string): Promise<http.IncomingHttpHeaders> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${origin}${target}`, { agent: false, timeout: 10_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers));
    });
    req.on('timeout', () => req.destroy(new Error(`timed out: ${target.slice(0, 40)}`)));
    req.on('error', reject);
  });
}

/** Each header bare Next sent but the shell did not send the same, as `name: next's → shell's`. */
function missingFromShell(
  next: http.IncomingHttpHeaders,
  shell: http.IncomingHttpHeaders,
  except: ReadonlySet<string>,
): string[] {
  return Object.keys(next)
    .filter((name) => !PER_ANSWER.has(name) && !except.has(name))
    .filter((name) => String(shell[name]) !== String(next[name]))
    .map((name) => `${name}: ${String(next[name])} → ${String(shell[name])}`);
}

// 'default' is the example product without its proxy: there the shell answers the probes and the
// paths it is sure are unknown itself; with the proxy ('example'), Next does, and only the 414, the
// restyled 404s and the shell's own paths are the shell's.
describe.each(['default', 'example'])('the shell and bare next start on the %s product build', (name) => {
  const product = PARITY_PRODUCTS.find((candidate) => candidate.name === name)!;
  let dir = '';
  let shell: RunningServer;
  let bare: RunningServer;

  beforeAll(async () => {
    dir = prebuiltProduct(name) ?? buildProduct(product);
    [shell, bare] = await Promise.all([startServer({ distDir: '.next', root: dir }), startBareNext(dir)]);
  }, 600_000);

  afterAll(async () => {
    await Promise.all([shell?.stop(), bare?.stop()]);
    if (dir && !prebuiltProduct(name)) rmSync(dir, { recursive: true, force: true });
  });

  it.each(TARGETS.map((target) => [target.slice(0, 40), target]))(
    "sends every header of next start's answer to %s as next start does",
    async (_label, target) => {
      const [ours, next] = await Promise.all([headersOf(shell.url, target), headersOf(bare.url, target)]);
      // A header the proxy sets (not a headers() rule) is on what Next answers only: the 414 and the
      // worker's script are the shell's own answers, before Next and so before the proxy.
      const beforeNext = target === TOO_MANY || target === '/_next/app-shell/worker.js';
      const except = new Set(beforeNext ? ['x-product-proxy'] : []);
      expect(missingFromShell(next, ours, except)).toEqual([]);
      // The product's headers are in next start's answer to compare with at all.
      expect(next['x-product-team']).toBe('storefront');
      expect(next['referrer-policy']).toBe('same-origin');
    },
  );

  it("sends a product's headers() on the health answer and the API 404, over the shell's defaults", async () => {
    for (const target of ['/api/health', '/api/missing']) {
      const headers = await headersOf(shell.url, target);
      expect(headers['x-product-team']).toBe('storefront');
      // Of the same name as a shell default: the product's.
      expect(headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'; sandbox");
      expect(headers['referrer-policy']).toBe('same-origin');
      // The shell's other defaults stay.
      expect(headers['x-content-type-options']).toBe('nosniff');
    }
  });
});

describe('a page of the example product in Chromium, under the shell in production', () => {
  let dir = '';
  let shell: RunningServer;
  let browser: Browser;

  beforeAll(async () => {
    dir = prebuiltProduct('example') ?? buildProduct(PARITY_PRODUCTS.find((p) => p.name === 'example')!);
    [shell, browser] = await Promise.all([startServer({ distDir: '.next', root: dir }), launchBrowser()]);
  }, 600_000);

  afterAll(async () => {
    await Promise.all([browser?.close(), shell?.stop()]);
    if (dir && !prebuiltProduct('example')) rmSync(dir, { recursive: true, force: true });
  });

  it('applies its React style attribute and next/image, with no CSP violation', async () => {
    const watched = await openWatchedPage(browser);
    try {
      const response = await watched.page.goto(`${shell.url}/`);
      expect(response?.status()).toBe(200);
      // The product's own header of a shell default's name, on the page itself too.
      expect(response?.headers()['referrer-policy']).toBe('same-origin');
      await watched.page.waitForLoadState('load');
      const heading = watched.page.getByRole('heading', { name: 'Home' });
      expect(await heading.evaluate((element) => getComputedStyle(element).color)).toBe('rgb(0, 90, 60)');
      const image = watched.page.getByRole('img', { name: 'A shelf' });
      // next/image's own style="color:transparent" (the alt text's colour while it loads).
      expect(await image.evaluate((element) => getComputedStyle(element).color)).toBe('rgba(0, 0, 0, 0)');
      expect(await image.evaluate((element) => (element as HTMLImageElement).naturalWidth)).toBeGreaterThan(
        0,
      );
      expect(await watched.cspViolations()).toEqual([]);
      expect(watched.consoleErrors.filter((line) => /Content Security Policy/i.test(line))).toEqual([]);
    } finally {
      await watched.close();
    }
  });

  it('still runs no inline script', async () => {
    const watched = await openWatchedPage(browser);
    try {
      await watched.page.goto(`${shell.url}/about`);
      const ran = await watched.page.evaluate(() => {
        const script = document.createElement('script');
        script.textContent = 'window.__inlineRan = true;';
        document.head.append(script);
        return (window as unknown as { __inlineRan?: boolean }).__inlineRan === true;
      });
      expect(ran).toBe(false);
      expect((await watched.cspViolations()).some((line) => line.startsWith('script-src'))).toBe(true);
    } finally {
      await watched.close();
    }
  });
});
