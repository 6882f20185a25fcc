// Lighthouse (12.x: 13 needs Node 22) in Debian's Chromium, default settings. Error pages answer
// 4xx/5xx on purpose, so Lighthouse is told not to treat the status as a failed load.
const { CHROMIUM_ARGS, CHROMIUM_PATH } = require('../../scripts/lib/chromium.js');

/**
 * @param {string} url
 * @returns {Promise<{ performance: number, accessibility: number, bestPractices: number, failing: string[] }>}
 */
async function audit(url) {
  const { default: lighthouse } = await import('lighthouse');
  const chromeLauncher = await import('chrome-launcher');
  const chrome = await chromeLauncher.launch({ chromePath: CHROMIUM_PATH, chromeFlags: CHROMIUM_ARGS });
  try {
    const result = await lighthouse(
      url,
      { port: chrome.port, logLevel: 'error', output: 'json' },
      {
        extends: 'lighthouse:default',
        settings: {
          onlyCategories: ['performance', 'accessibility', 'best-practices'],
          ignoreStatusCode: true,
        },
      },
    );
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { categories, audits } = result.lhr;
    // A category whose audits failed to run has no score: NaN (printed n/a), not a score of 0.
    const score = (/** @type {string} */ id) => Math.round((categories[id]?.score ?? NaN) * 100);
    const failing = Object.values(categories)
      .flatMap((category) => category.auditRefs)
      .filter((ref) => ref.weight > 0 && (audits[ref.id]?.score ?? 1) < 1)
      .map((ref) => `${ref.id} (${audits[ref.id]?.score})`);
    // And the audits that could not run, with why: what left a category without a score.
    for (const entry of Object.values(audits)) {
      if (entry.scoreDisplayMode === 'error') failing.push(`${entry.id} (error: ${entry.errorMessage})`);
    }
    return {
      performance: score('performance'),
      accessibility: score('accessibility'),
      bestPractices: score('best-practices'),
      failing,
    };
  } finally {
    await chrome.kill();
  }
}

module.exports = { audit };
