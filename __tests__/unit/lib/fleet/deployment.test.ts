import { DEPLOYMENT_HEADER, fleetBuildName, namedDeployment } from '@lib/fleet/deployment';

describe('namedDeployment: the build a request names by Next’s deployment id', () => {
  it.each([
    ['/_next/static/chunks/a-1.js?dpl=deploy-one', 'deploy-one'],
    ['/_next/static/chunks/a-1.js?v=2&dpl=deploy_one&x', 'deploy_one'],
    ['/_next/static/chunks/a-1.js?dpl=one&dpl=two', 'one'],
    ['/_next/static/chunks/a-1.js', null],
    ['/_next/static/chunks/a-1.js?', null],
    ['/_next/static/chunks/a-1.js?xdpl=one', null],
    ['/_next/static/chunks/a-1.js?dpl=', null],
    ['/_next/static/chunks/a-1.js?dpl=..%2Fetc', null],
    [`/_next/static/chunks/a-1.js?dpl=${'a'.repeat(64)}`, 'a'.repeat(64)],
    [`/_next/static/chunks/a-1.js?dpl=${'a'.repeat(65)}`, null],
  ])('a static file asked as %s: %s', (url, named) => {
    expect(namedDeployment('static', url, { [DEPLOYMENT_HEADER]: 'from-header' })).toBe(named);
  });

  it.each([
    [{ 'x-deployment-id': 'deploy-one' }, 'deploy-one'],
    [{ 'x-nextjs-deployment-id': 'deploy-one' }, null],
    [{ 'x-deployment-id': 'deploy one' }, null],
    [{ 'x-deployment-id': ['a', 'b'] }, null],
    [{}, null],
  ])('a page’s data asked with %o: %s (never its query)', (headers, named) => {
    expect(namedDeployment('data', '/_next/data/b/x.json?dpl=from-query', headers)).toBe(named);
  });
});

describe('fleetBuildName: what the fleet knows a build by', () => {
  it('its deployment id where it has one, else Next’s build id', () => {
    expect(fleetBuildName('build-TfctsWXpff2fKS', 'deploy-one')).toBe('deploy-one');
    expect(fleetBuildName('abc123', undefined)).toBe('abc123');
    expect(fleetBuildName('abc123', '')).toBe('abc123');
    expect(fleetBuildName('abc123', 7)).toBe('abc123');
  });

  it('none for a deployment id longer than the fleet carries', () => {
    expect(fleetBuildName('b', 'a'.repeat(64))).toBe('a'.repeat(64));
    expect(fleetBuildName('b', 'a'.repeat(65))).toBeNull();
  });
});
