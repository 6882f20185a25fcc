// The first-load JavaScript budget's lines, as the docs state them (docs/browser-reporting.md,
// source-maps.md, fleet.md, error-screens.md, unavailable-screens.md). The end-to-end page-weight
// test holds every build to the budget file; this holds the file to the docs, so a budget raised
// in the file alone fails here.
import { readFileSync } from 'node:fs';
import path from 'node:path';

const budget = JSON.parse(
  readFileSync(path.resolve(__dirname, '../../../bench/page-weight-budget.json'), 'utf8'),
) as Record<string, unknown>;

describe('the page-weight budget', () => {
  it('lets the error screen grow 2,048 B over bare Next, plus a line for each trade the docs name', () => {
    expect({
      allowance: budget.allowance,
      fleetRecovery: budget.fleetRecovery,
      serviceWorker: budget.serviceWorker,
      screenLanguages: budget.screenLanguages,
      notFoundJavaScript: budget.notFoundJavaScript,
      sdkFile: budget.sdkFile,
    }).toEqual({
      allowance: 2048,
      fleetRecovery: 256,
      serviceWorker: 64,
      screenLanguages: 32,
      notFoundJavaScript: 0,
      sdkFile: 28_694,
    });
  });
});
