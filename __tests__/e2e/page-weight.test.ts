// First-load JS budgets, asserted on the production builds without SENTRY_DSN and with it and
// tracing on, and the budget of the SDK file every visitor of a build with a DSN loads. Gzip bytes
// are deterministic for a given build, so the budget (bench/page-weight-budget.json, beside bare
// Next's figures from the bench) holds exactly; the bench measures the same way. What is held is
// the shell's weight, never its product's: with a product's pages in the build, the shell's pages'
// own files are weighed, with what Next's runtime and the page manifests weigh in the shell alone
// (bench/lib/page-weight.js, shellFirstLoad), and the shell-alone builds are held to those figures.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  firstLoadAllowance,
  firstLoadJs,
  firstLoadParts,
  holdsOnly,
  firstLoadJsFromHtml,
  notFoundTransfer,
  sdkChunk,
  shellFirstLoad,
} from '../../bench/lib/page-weight';
import { PRODUCTION_DIST, PRODUCTION_DSN_DIST, ROOT } from '../support/paths';
import { SHELL_ROUTES } from '../support/route-files';
import { buildUnlessKept, plannedEnv } from '../support/builds';

const budget = JSON.parse(readFileSync(path.join(ROOT, 'bench/page-weight-budget.json'), 'utf8')) as {
  bareNext: Record<string, { own: number; runtime: number; pageSet: number }>;
  shellAlone: { runtime: number; pageSet: number };
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
// Before the tests are collected: which run depends on what the builds hold. (Made already by the
// suite's set-up; run alone, this file makes them.)
for (const [, dist] of BUILDS) buildUnlessKept(dist, plannedEnv(dist));
/** Whether a build holds the shell alone, with no product's page beside its own. */
const shellAlone = (dist: string) => holdsOnly(path.join(ROOT, dist), SHELL_ROUTES);
/** Tests of the builds of the shell alone: skipped (and so shown) with a product inside. */
const describeAlone = BUILDS.every(([, dist]) => shellAlone(dist)) ? describe : describe.skip;

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
      const bytes = shellFirstLoad(path.join(ROOT, dist), page, {
        shellAlone: shellAlone(dist),
        alone: budget.shellAlone,
      });
      const bare = budget.bareNext[page]!;
      const limit = bare.own + bare.runtime + bare.pageSet + firstLoadAllowance(budget);
      const { own, runtime, pageSet } = firstLoadParts(path.join(ROOT, dist), page);
      process.stdout.write(
        `[e2e] first-load JS of ${page} in ${dist}${shellAlone(dist) ? '' : ' (with a product)'}: ${bytes} B (budget ${limit} B); own ${own.bytes} B, runtime ${runtime.bytes} B, page manifests ${pageSet.bytes} B\n`,
      );
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
  it('are reported, the tracing file the other plus tracing', () => {
    const sdk = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST))!;
    const tracing = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST), 'tracing')!;
    process.stdout.write(
      `[e2e] SDK files in ${PRODUCTION_DSN_DIST}: ${sdk.bytes} B (budget ${budget.sdkFile} B); tracing, for sampled visitors: ${tracing.bytes} B\n`,
    );
    // The tracing code (some 30 KB) is in the tracing file, which is the other plus tracing.
    expect(tracing.bytes).toBeGreaterThan(sdk.bytes + 20_000);
  });
});

// With a product inside, Next's runtime and the page manifests, and what webpack keeps of Sentry's
// and React's modules in the SDK file, follow what the product's pages are and use too.
describeAlone('the shell alone', () => {
  // What a product build's figure takes for Next's runtime and the page manifests must be no less
  // than the shell's own: a shell change that makes either heavier fails here until recorded.
  it.each(BUILDS)(
    '%s: Next’s runtime and the page manifests weigh what the budget records for the shell alone',
    (_label, dist) => {
      const { runtime, pageSet } = firstLoadParts(path.join(ROOT, dist), '/_error');
      expect(runtime.bytes).toBeLessThanOrEqual(budget.shellAlone.runtime);
      expect(pageSet.bytes).toBeLessThanOrEqual(budget.shellAlone.pageSet);
    },
  );

  it('every visitor’s SDK file (errors and sessions) stays within the errors-only file’s weight', () => {
    expect(sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST))!.bytes).toBeLessThanOrEqual(budget.sdkFile);
  });
});
