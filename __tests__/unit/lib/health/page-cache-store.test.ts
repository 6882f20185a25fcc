import { pageCacheChecks, pageCacheStoreCheck, pageCacheStoreSlot } from '@lib/health/page-cache-store';

afterEach(() => pageCacheStoreSlot.clear());

const storeThatIs = (up: boolean) => ({ up: () => up, close: async () => {} });

describe("the page cache store's health check", () => {
  it('passes while the store is connected', () => {
    pageCacheStoreSlot.write(storeThatIs(true));
    expect(pageCacheStoreCheck.read()).toEqual({
      status: 'pass',
      observedValue: true,
      observedUnit: 'connected',
    });
  });

  it('warns, and says pages are still served, while the store is away', () => {
    pageCacheStoreSlot.write(storeThatIs(false));
    expect(pageCacheStoreCheck.read()).toEqual({
      status: 'warn',
      observedValue: false,
      observedUnit: 'connected',
      output: expect.stringContaining('pages are served from memory or the build, or rendered'),
    });
  });

  it('never takes the instance out of the load balancer: it is not critical', () => {
    expect(pageCacheStoreCheck).toMatchObject({
      name: 'page-cache:store',
      componentType: 'datastore',
      critical: false,
    });
  });

  it('reads the store as it is at each reading', () => {
    let up = true;
    pageCacheStoreSlot.write({ up: () => up, close: async () => {} });
    expect(pageCacheStoreCheck.read().status).toBe('pass');
    up = false;
    expect(pageCacheStoreCheck.read().status).toBe('warn');
  });

  it('is there once a store is configured', () => {
    pageCacheStoreSlot.write(storeThatIs(false));
    expect(pageCacheChecks()).toEqual([pageCacheStoreCheck]);
  });

  it('is not there without a store', () => {
    expect(pageCacheChecks()).toEqual([]);
  });
});

describe('the check with no store in its slot', () => {
  it('warns rather than passes', () => {
    expect(pageCacheStoreCheck.read()).toMatchObject({ status: 'warn', observedValue: false });
  });
});
