// The first-load reporter imported on the server (Next renders _app there too): it reports nothing.
type Reporter = typeof import('@lib/reporting/browser/reporter');

const saved = { ...process.env };
afterEach(() => {
  process.env = { ...saved };
});

it('gives no id and keeps nothing on the server, even in a build with a DSN', async () => {
  process.env.APP_SENTRY_SDK_URL = '/_next/static/chunks/reporting-abc.js';
  let reporter!: Reporter;
  await jest.isolateModulesAsync(async () => {
    reporter = await import('@lib/reporting/browser/reporter');
  });
  expect(reporter.reportBrowserError(new Error('rendering failed'), 'onerror')).toBeUndefined();
});
