// Where the browser's reporting files are asked for: as Next asks for every build file, under the
// build's assetPrefix (its basePath unless set, or a CDN's URL) and with `?dpl=` when the product
// sets a deploymentId. Asked at a bare /_next/ path, a build with basePath never loaded the SDK.
import { nextConfigWith } from '../../support/next-config';

/** A stand-in for webpack's DefinePlugin that keeps the reporting files' URLs it is given. */
function capture() {
  const defined: Record<string, string> = {};
  class DefinePlugin {
    constructor(definitions: Record<string, unknown>) {
      for (const [name, value] of Object.entries(definitions))
        if (name.startsWith('process.env.APP_SENTRY_')) defined[name] = JSON.parse(String(value)) as string;
    }
  }
  return { defined, DefinePlugin };
}

/** What next.config's webpack() defines for a browser build of `resolved` (Next's resolved config). */
function definedUrls(resolved: Record<string, unknown>, dsn: string | undefined): Record<string, string> {
  const { defined, DefinePlugin } = capture();
  const config = nextConfigWith({ SENTRY_DSN: dsn, SENTRY_TRACES_SAMPLE_RATE: dsn ? '0.5' : undefined });
  const webpackConfig = {
    plugins: [] as unknown[],
    module: { rules: [] as unknown[] },
    entry: () => Promise.resolve({}),
    optimization: {},
  };
  // (The parts of webpack's options next.config's webpack() reads.)
  const options = { webpack: { DefinePlugin }, isServer: false, buildId: 'b1', dev: false, config: resolved };
  config.webpack!(webpackConfig, options as never);
  return defined;
}

const DSN = 'http://publickey@127.0.0.1:9/1';

let warn: jest.SpyInstance;
beforeEach(() => {
  warn = jest.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

describe('the reporting files’ URLs', () => {
  it.each([
    [{}, '/_next/static/chunks/reporting-b1.js'],
    [{ basePath: '/shop', assetPrefix: '/shop' }, '/shop/_next/static/chunks/reporting-b1.js'],
    [{ basePath: '/shop' }, '/shop/_next/static/chunks/reporting-b1.js'],
    [{ assetPrefix: '/assets/' }, '/assets/_next/static/chunks/reporting-b1.js'],
    [
      { assetPrefix: 'https://cdn.example.com' },
      'https://cdn.example.com/_next/static/chunks/reporting-b1.js',
    ],
    [{ deploymentId: 'deploy-one' }, '/_next/static/chunks/reporting-b1.js?dpl=deploy-one'],
    [{ deploymentId: 'deploy-one', supportsImmutableAssets: true }, '/_next/static/chunks/reporting-b1.js'],
  ])('with %o: %s', (resolved, url) => {
    const defined = definedUrls(resolved, DSN);
    expect(defined['process.env.APP_SENTRY_SDK_URL']).toBe(url);
    expect(defined['process.env.APP_SENTRY_TRACING_URL']).toBe(
      url.replace('reporting-', 'reporting-tracing-'),
    );
  });

  it('are none without a DSN', () => {
    expect(definedUrls({ basePath: '/shop' }, undefined)).toEqual({
      'process.env.APP_SENTRY_SDK_URL': '',
      'process.env.APP_SENTRY_TRACING_URL': '',
    });
  });
});

describe('a CDN’s URL in assetPrefix', () => {
  it('is said in one line by the browser compile: the shell’s headers refuse its files', () => {
    definedUrls({ assetPrefix: 'https://cdn.example.com/' }, DSN);
    expect(warn.mock.calls).toEqual([
      [
        "assetPrefix https://cdn.example.com is another origin: the shell's Content-Security-Policy and " +
          'Cross-Origin-Resource-Policy refuse its scripts and styles, so no page would run. Use a path ' +
          '(assetPrefix: "/assets"), or allow that origin in lib/http/security-headers.ts (docs/security-headers.md).',
      ],
    ]);
    warn.mockClear();
    for (const resolved of [{}, { assetPrefix: '/assets' }, { basePath: '/shop', assetPrefix: '/shop' }])
      definedUrls(resolved, DSN);
    expect(warn).not.toHaveBeenCalled();
  });
});
