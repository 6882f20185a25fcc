import { assetBase, assetQuery, assetUrl } from '@lib/config/asset-urls';

describe('a build file’s URL, as Next writes it into a page', () => {
  it.each([
    [{}, ''],
    [{ basePath: '/shop' }, '/shop'],
    [{ basePath: '/shop', assetPrefix: '/shop' }, '/shop'],
    [{ basePath: '/shop', assetPrefix: '/assets' }, '/assets'],
    [{ assetPrefix: '/assets//' }, '/assets'],
    [{ assetPrefix: 'https://cdn.example.com/' }, 'https://cdn.example.com'],
  ])('is under %o: %j', (config, base) => {
    expect(assetBase(config)).toBe(base);
  });

  it.each([
    [{}, ''],
    [{ deploymentId: '' }, ''],
    [{ deploymentId: 'deploy-one' }, '?dpl=deploy-one'],
    [{ deploymentId: 'deploy-one', supportsImmutableAssets: false }, '?dpl=deploy-one'],
    [{ deploymentId: 'deploy-one', supportsImmutableAssets: true }, ''],
  ])('ends, for %o, with %j', (config, query) => {
    expect(assetQuery(config)).toBe(query);
  });

  it('is the two around /_next/ and the file, or none for no file', () => {
    const config = { basePath: '/shop', deploymentId: 'd1' };
    expect(assetUrl(config, 'static/chunks/a.js')).toBe('/shop/_next/static/chunks/a.js?dpl=d1');
    expect(assetUrl(config, '')).toBe('');
  });
});
