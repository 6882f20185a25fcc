// First-load JS budgets, asserted on the production builds without SENTRY_DSN and with it and
// tracing on, and the budget of the SDK file every visitor of a build with a DSN loads. Gzip bytes
// are deterministic for a given build, so the budget (bench/page-weight-budget.json, beside bare
// Next's figures from the bench) holds exactly; the bench measures the same way.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  firstLoadAllowance,
  firstLoadJs,
  firstLoadJsFromHtml,
  notFoundTransfer,
  sdkChunk,
} from '../../bench/lib/page-weight';
import { PRODUCTION_DIST, PRODUCTION_DSN_DIST, ROOT } from '../support/paths';

const budget = JSON.parse(readFileSync(path.join(ROOT, 'bench/page-weight-budget.json'), 'utf8')) as {
  bareNext: Record<string, number>;
  allowance: number;
  fleetRecovery: number;
  serviceWorker: number;
  screenLanguages: number;
  notFoundJavaScript: number;
  sdkFile: number;
};

const BUILDS = [
  ['without SENTRY_DSN', PRODUCTION_DIST],
  ['with SENTRY_DSN and tracing', PRODUCTION_DSN_DIST],
] as const;
const PAGES = [['the error screen', '/_error']] as const;

describe('the 404 page', () => {
  it.each(BUILDS)('%s ships no JavaScript: no script of any kind in its HTML', (_label, dist) => {
    const html = readFileSync(path.join(ROOT, dist, 'server/pages/404.html'), 'utf8');
    // Fails the day a Next upgrade stops honouring the page's `unstable_runtimeJS: false`.
    expect(html).not.toMatch(/<script/i);
    expect(firstLoadJsFromHtml(path.join(ROOT, dist), 'server/pages/404.html')).toBe(
      budget.notFoundJavaScript,
    );
    const transfer = notFoundTransfer(path.join(ROOT, dist));
    process.stdout.write(
      `[e2e] /404 in ${dist}: HTML ${transfer.html} B + CSS ${transfer.css} B + JS ${transfer.js} B gzip\n`,
    );
    expect(transfer.js).toBe(0);
  });
});

describe('first-load JS', () => {
  it.each(BUILDS.flatMap(([label, dist]) => PAGES.map(([name, page]) => [name, label, dist, page] as const)))(
    '%s %s stays within bare Next + the allowance',
    (_name, _label, dist, page) => {
      const { bytes } = firstLoadJs(path.join(ROOT, dist), page);
      const limit = budget.bareNext[page]! + firstLoadAllowance(budget);
      process.stdout.write(`[e2e] first-load JS of ${page} in ${dist}: ${bytes} B (budget ${limit} B)\n`);
      expect(bytes).toBeLessThanOrEqual(limit);
    },
  );

  it('never includes the Sentry SDK files, which load only when the page is idle', () => {
    const sdk = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST));
    const tracing = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST), 'tracing');
    expect(sdk).not.toBeNull();
    expect(tracing).not.toBeNull();
    expect(sdkChunk(path.join(ROOT, PRODUCTION_DIST))).toBeNull();
    expect(sdkChunk(path.join(ROOT, PRODUCTION_DIST), 'tracing')).toBeNull();
    for (const [, dist] of BUILDS) {
      for (const [, page] of [...PAGES, ['/404', '/404'] as const]) {
        const { files } = firstLoadJs(path.join(ROOT, dist), page);
        expect(files.length).toBeGreaterThan(0);
        expect(files.some((file) => file.endsWith(sdk!.file) || file.endsWith(tracing!.file))).toBe(false);
        for (const file of files) {
          // The SDK names itself `sentry.javascript.<package>`: that string appears only in the SDK file.
          expect(readFileSync(path.join(ROOT, dist, file), 'utf8')).not.toMatch(/sentry\.javascript\./);
        }
      }
    }
  });
});

describe('the SDK files', () => {
  it('every visitor’s (errors and sessions) stays within the errors-only file’s weight; the tracing file is reported', () => {
    const sdk = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST))!;
    const tracing = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST), 'tracing')!;
    process.stdout.write(
      `[e2e] SDK files in ${PRODUCTION_DSN_DIST}: ${sdk.bytes} B (budget ${budget.sdkFile} B); tracing, for sampled visitors: ${tracing.bytes} B\n`,
    );
    expect(sdk.bytes).toBeLessThanOrEqual(budget.sdkFile);
    // The tracing code (some 30 KB) is in the tracing file, which is the other plus tracing.
    expect(tracing.bytes).toBeGreaterThan(sdk.bytes + 20_000);
  });
});
