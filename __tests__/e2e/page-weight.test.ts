// First-load JS budgets, asserted on the production builds with and without SENTRY_DSN. Gzip bytes
// are deterministic for a given build, so the budget (bench/page-weight-budget.json, beside bare
// Next's figures from the bench) holds exactly; the bench measures the same way.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { firstLoadJs, sdkChunk } from '../../bench/lib/page-weight';
import { PRODUCTION_DIST, PRODUCTION_DSN_DIST, ROOT } from '../support/paths';

const budget = JSON.parse(readFileSync(path.join(ROOT, 'bench/page-weight-budget.json'), 'utf8')) as {
  bareNext: Record<string, number>;
  allowance: number;
};

const BUILDS = [
  ['without SENTRY_DSN', PRODUCTION_DIST],
  ['with SENTRY_DSN', PRODUCTION_DSN_DIST],
] as const;
const PAGES = [
  ['/404', '/404'],
  ['the error screen', '/_error'],
] as const;

describe('first-load JS', () => {
  it.each(BUILDS.flatMap(([label, dist]) => PAGES.map(([name, page]) => [name, label, dist, page] as const)))(
    '%s %s stays within bare Next + the allowance',
    (_name, _label, dist, page) => {
      const { bytes } = firstLoadJs(path.join(ROOT, dist), page);
      const limit = budget.bareNext[page]! + budget.allowance;
      process.stdout.write(`[e2e] first-load JS of ${page} in ${dist}: ${bytes} B (budget ${limit} B)\n`);
      expect(bytes).toBeLessThanOrEqual(limit);
    },
  );

  it('never includes the Sentry SDK, which loads only when the page is idle', () => {
    const sdk = sdkChunk(path.join(ROOT, PRODUCTION_DSN_DIST));
    expect(sdk).not.toBeNull();
    expect(sdkChunk(path.join(ROOT, PRODUCTION_DIST))).toBeNull();
    for (const [, dist] of BUILDS) {
      for (const [, page] of PAGES) {
        const { files } = firstLoadJs(path.join(ROOT, dist), page);
        expect(files.length).toBeGreaterThan(0);
        expect(files.some((file) => file.endsWith(sdk!.file))).toBe(false);
        for (const file of files) {
          // The SDK names itself `sentry.javascript.<package>`: that string appears only in the SDK file.
          expect(readFileSync(path.join(ROOT, dist, file), 'utf8')).not.toMatch(/sentry\.javascript\./);
        }
      }
    }
  });
});
