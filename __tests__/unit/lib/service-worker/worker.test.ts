import { RETRY_WAIT_MS, startWorker, type WorkerSettings } from '@lib/service-worker/worker';
import { fakeWorkerScope } from './fake-worker-scope';

const SETTINGS: WorkerSettings = {
  on: true,
  build: { id: 'build-b', time: 2000 },
  cachePrefix: 'app-shell-screens-',
  answerHeader: 'x-app-shell-answer',
  balancerStatuses: [502, 503, 504],
  seenPath: '/_next/app-shell/screen-seen',
  screens: {
    offline: '<main data-screen="offline"></main>',
    unavailable: '<main data-screen="unavailable"></main>',
  },
  screenHeaders: { 'Content-Type': 'text/html; charset=utf-8', 'Retry-After': '5' },
};
const PAGE = 'http://127.0.0.1/orders/42';
const ours = (status: number) =>
  new Response(`ours ${status}`, { status, headers: { 'x-app-shell-answer': '1' } });
const balancers = (status: number) => new Response('<h1>503 Service Unavailable</h1>', { status });

function started(settings: Partial<WorkerSettings> = {}, options: { online?: boolean } = {}) {
  const worker = fakeWorkerScope(options);
  startWorker(worker.scope, { ...SETTINGS, ...settings });
  return worker;
}

describe('a navigation', () => {
  it.each([200, 301, 404, 500, 502, 503, 504])(
    'the app answered %i is shown as the network gave it, never from a cache',
    async (status) => {
      const worker = started();
      const answer = ours(status);
      worker.network.mockResolvedValue(answer);
      expect(await worker.navigate({ url: PAGE })).toBe(answer);
      expect(worker.caches.urls()).not.toContain(PAGE);
    },
  );

  it.each([200, 403, 404, 500])(
    'a %i that is not the app’s (a balancer’s or a proxy’s own) is shown as it is',
    async (status) => {
      const worker = started();
      const answer = balancers(status);
      worker.network.mockResolvedValue(answer);
      expect(await worker.navigate({ url: PAGE })).toBe(answer);
    },
  );

  it.each([502, 503, 504])(
    'a balancer’s %i (no mark of the app) gets the unavailable screen',
    async (status) => {
      const worker = started();
      worker.network.mockResolvedValue(balancers(status));
      const screen = await worker.navigate({ url: PAGE });
      expect(screen?.status).toBe(503);
      expect(await screen?.text()).toBe(SETTINGS.screens.unavailable);
      expect(screen?.headers.get('retry-after')).toBe('5');
      expect(screen?.headers.get('content-type')).toBe('text/html; charset=utf-8');
    },
  );

  it('that fails while the browser is offline gets the offline screen', async () => {
    const worker = started({}, { online: false });
    worker.network.mockRejectedValue(new TypeError('Failed to fetch'));
    expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
  });

  it('that fails while the browser is online (the app cannot be reached) gets the unavailable screen', async () => {
    const worker = started();
    worker.network.mockRejectedValue(new TypeError('Failed to fetch'));
    expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.unavailable);
  });

  describe('that fails is tried once more, after a short jittered wait, before any screen', () => {
    afterEach(() => jest.restoreAllMocks());

    it.each([
      ['the connection failed', () => Promise.reject(new TypeError('Failed to fetch'))],
      ['a balancer answered 502', () => Promise.resolve(balancers(502))],
      ['a balancer answered 503', () => Promise.resolve(balancers(503))],
      ['a balancer answered 504', () => Promise.resolve(balancers(504))],
    ])('%s, then the app answered: the app’s answer, no screen', async (_, first) => {
      const worker = started();
      const page = ours(200);
      worker.network.mockImplementationOnce(first).mockResolvedValueOnce(page);
      expect(await worker.navigate({ url: PAGE })).toBe(page);
      expect(worker.network).toHaveBeenCalledTimes(2);
      expect(worker.waits).toHaveLength(1);
      expect(worker.caches.urls()).toEqual([]);
    });

    it('whose preload failed: the retry goes to the network', async () => {
      const worker = started();
      const page = ours(200);
      worker.network.mockResolvedValueOnce(page);
      const answer = await worker.navigate({ url: PAGE, preload: Promise.reject(new TypeError('reset')) });
      expect(answer).toBe(page);
      expect(worker.network).toHaveBeenCalledTimes(1);
    });

    it('once only: a second failure gets the unavailable screen, counted as seen', async () => {
      const worker = started();
      worker.network.mockRejectedValue(new TypeError('Failed to fetch'));
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.unavailable);
      expect(worker.network).toHaveBeenCalledTimes(2);
      expect(worker.waits).toHaveLength(1);
      expect(worker.caches.urls()).toEqual([`${SETTINGS.seenPath}/unavailable`]);
    });

    it('the wait is RETRY_WAIT_MS ±50 %, spread by chance', async () => {
      const waited = async (random: number) => {
        jest.spyOn(Math, 'random').mockReturnValue(random);
        const worker = started();
        worker.network.mockRejectedValueOnce(new TypeError('reset')).mockResolvedValueOnce(ours(200));
        await worker.navigate({ url: PAGE });
        return worker.waits;
      };
      expect(RETRY_WAIT_MS).toBe(1000);
      expect(await waited(0)).toEqual([500]);
      expect(await waited(0.999)).toEqual([1499]);
      expect(await waited(0.5)).toEqual([1000]);
    });

    it('not while offline: the offline screen at once, nothing sent again', async () => {
      const worker = started({}, { online: false });
      worker.network.mockRejectedValue(new TypeError('Failed to fetch'));
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
      expect(worker.network).toHaveBeenCalledTimes(1);
      expect(worker.waits).toEqual([]);
    });

    it('the browser went offline during the wait: the offline screen', async () => {
      const worker = started();
      worker.network.mockImplementation(async () => {
        worker.scope.navigator.onLine = false;
        throw new TypeError('Failed to fetch');
      });
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
    });

    it('an answer of the app is never sent again, whatever its status', async () => {
      const worker = started();
      const answer = ours(503);
      worker.network.mockResolvedValue(answer);
      expect(await worker.navigate({ url: PAGE })).toBe(answer);
      expect(worker.network).toHaveBeenCalledTimes(1);
      expect(worker.waits).toEqual([]);
    });
  });

  describe('offline or unavailable: once the browser has said offline, only an answer from the network says it is back', () => {
    const failed = () => Promise.reject(new TypeError('Failed to fetch'));
    /** A worker that has shown the offline screen, after which navigator.onLine reads true again. */
    async function offlineOnce() {
      const worker = started({}, { online: false });
      worker.network.mockImplementation(failed);
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
      worker.scope.navigator.onLine = true;
      worker.network.mockClear();
      return worker;
    }

    it('no answer while navigator.onLine reads true again: still the offline screen, at once, nothing sent again', async () => {
      const worker = await offlineOnce();
      const screen = await worker.navigate({ url: 'http://127.0.0.1/orders/never-visited' });
      expect(await screen?.text()).toBe(SETTINGS.screens.offline);
      expect(worker.network).toHaveBeenCalledTimes(1);
      expect(worker.waits).toEqual([]);
    });

    it('the browser said offline only at the second try: later failures are offline too', async () => {
      const worker = started();
      worker.network.mockImplementationOnce(failed).mockImplementationOnce(async () => {
        worker.scope.navigator.onLine = false;
        throw new TypeError('Failed to fetch');
      });
      worker.network.mockImplementation(failed);
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
      worker.scope.navigator.onLine = true;
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
      expect(worker.waits).toHaveLength(1);
    });

    it('the app answered since (through the preload): a failure is the app’s again, tried once more, then unavailable', async () => {
      const worker = await offlineOnce();
      const page = ours(200);
      expect(await worker.navigate({ url: PAGE, preload: Promise.resolve(page) })).toBe(page);
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.unavailable);
      expect(worker.waits).toHaveLength(1);
    });

    it('a balancer answered since (the network is back, the app is not): unavailable, even when the second try gets no answer', async () => {
      const worker = await offlineOnce();
      worker.network.mockResolvedValueOnce(balancers(503)).mockImplementationOnce(failed);
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.unavailable);
      expect(worker.network).toHaveBeenCalledTimes(2);
    });

    it('any other answer since, a proxy’s own included: the network is back', async () => {
      const worker = await offlineOnce();
      const proxys = balancers(403);
      worker.network.mockResolvedValueOnce(proxys);
      expect(await worker.navigate({ url: PAGE })).toBe(proxys);
      expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.unavailable);
    });
  });

  it('uses the navigation preload answer when there is one, and asks the network only when there is not', async () => {
    const worker = started();
    const preloaded = ours(200);
    expect(await worker.navigate({ url: PAGE, preload: Promise.resolve(preloaded) })).toBe(preloaded);
    expect(worker.network).not.toHaveBeenCalled();
    worker.network.mockResolvedValue(ours(200));
    await worker.navigate({ url: PAGE });
    expect(worker.network).toHaveBeenCalledTimes(1);
  });

  it('whose preload failed gets a screen', async () => {
    const worker = started({}, { online: false });
    const screen = await worker.navigate({ url: PAGE, preload: Promise.reject(new TypeError('offline')) });
    expect(await screen?.text()).toBe(SETTINGS.screens.offline);
  });

  it.each([
    ['a script', { mode: 'no-cors' }],
    ['a data request', { mode: 'cors', url: 'http://127.0.0.1/_next/data/b/orders.json' }],
    ['an API call', { mode: 'same-origin', url: 'http://127.0.0.1/api/health' }],
    ['a form posted', { mode: 'navigate', method: 'POST' }],
  ])('is all it handles: %s is left to the browser', async (_, request) => {
    const worker = started();
    expect(await worker.navigate({ url: PAGE, ...request })).toBeUndefined();
    expect(worker.network).not.toHaveBeenCalled();
  });
});

describe('screens seen', () => {
  const beacons = (worker: ReturnType<typeof started>) =>
    worker.network.mock.calls.filter(([, init]) => init?.method === 'POST').map(([url]) => url);

  it('are said once each, one POST per screen, on the first navigation the network answers', async () => {
    const worker = started({}, { online: false });
    worker.network.mockRejectedValue(new TypeError('offline'));
    await worker.navigate({ url: PAGE });
    await worker.navigate({ url: PAGE });
    // Back online, but not the app: its balancer answers (an answer, so unavailable, not offline).
    worker.scope.navigator.onLine = true;
    worker.network.mockResolvedValue(balancers(503));
    await worker.navigate({ url: PAGE });
    worker.network.mockResolvedValue(ours(200));
    await worker.navigate({ url: PAGE });
    expect(beacons(worker).sort()).toEqual(
      [
        'http://127.0.0.1/_next/app-shell/screen-seen/offline',
        'http://127.0.0.1/_next/app-shell/screen-seen/unavailable',
      ].map((url) => new URL(url).pathname),
    );
    await worker.navigate({ url: PAGE });
    expect(beacons(worker)).toHaveLength(2);
  });

  it('wait while navigations fail or a balancer answers, and go with the first that succeeds, a retry included', async () => {
    const worker = started({}, { online: false });
    worker.network.mockRejectedValue(new TypeError('offline'));
    await worker.navigate({ url: PAGE });
    worker.scope.navigator.onLine = true;
    worker.network.mockReset().mockResolvedValue(balancers(503));
    await worker.navigate({ url: PAGE });
    const seen = [`${SETTINGS.seenPath}/offline`, `${SETTINGS.seenPath}/unavailable`];
    expect(beacons(worker)).toEqual([]);
    expect(worker.caches.urls().sort()).toEqual(seen);
    // The app is back, on the worker's second try: that navigation succeeded, so it says them.
    worker.network.mockReset().mockRejectedValueOnce(new TypeError('reset')).mockResolvedValue(ours(200));
    expect((await worker.navigate({ url: PAGE }))?.status).toBe(200);
    expect(beacons(worker).sort()).toEqual(seen.map((url) => new URL(url, PAGE).pathname));
    expect(worker.caches.urls()).toEqual([]);
  });

  it('are kept in Cache Storage, so a worker that stopped and started again still says them', async () => {
    const before = started({}, { online: false });
    before.network.mockRejectedValue(new TypeError('offline'));
    await before.navigate({ url: PAGE });
    const after = fakeWorkerScope();
    Object.assign(after.caches, { stores: before.caches.stores });
    startWorker(after.scope, SETTINGS);
    after.network.mockResolvedValue(ours(200));
    await after.navigate({ url: PAGE });
    expect(beacons(after)).toEqual(['/_next/app-shell/screen-seen/offline']);
  });

  it('cost nothing when there are none: no beacon', async () => {
    const worker = started();
    worker.network.mockResolvedValue(ours(200));
    await worker.navigate({ url: PAGE });
    await worker.navigate({ url: PAGE });
    expect(beacons(worker)).toEqual([]);
  });

  it('without storage: the screen is shown all the same', async () => {
    const worker = started({}, { online: false });
    worker.caches.broken = true;
    worker.network.mockRejectedValue(new TypeError('offline'));
    expect(await (await worker.navigate({ url: PAGE }))?.text()).toBe(SETTINGS.screens.offline);
    worker.network.mockResolvedValue(ours(200));
    await expect(worker.navigate({ url: PAGE })).resolves.toBeDefined();
  });
});

describe('install and activate', () => {
  it('installs at once over an older build’s worker, then deletes only its own older caches', async () => {
    const worker = started();
    await worker.caches.open('app-shell-screens-1000-build-a');
    await worker.caches.open('app-shell-screens-seen');
    await worker.caches.open('product-images');
    await worker.lifecycle('install');
    expect(worker.scope.skipWaiting).toHaveBeenCalled();
    await worker.lifecycle('activate');
    expect((await worker.caches.keys()).sort()).toEqual([
      'app-shell-screens-2000-build-b',
      'app-shell-screens-seen',
      'product-images',
    ]);
    expect(worker.scope.registration.navigationPreload.enable).toHaveBeenCalled();
    expect(worker.scope.registration.unregister).not.toHaveBeenCalled();
  });

  it('refuses to install over a newer build’s worker: a rolling update does not flip a visitor between builds', async () => {
    const worker = started();
    await worker.caches.open('app-shell-screens-3000-build-c');
    await expect(worker.lifecycle('install')).rejects.toThrow(/newer build/);
    expect(worker.scope.skipWaiting).not.toHaveBeenCalled();
    expect(await worker.caches.keys()).toEqual(['app-shell-screens-3000-build-c']);
  });

  it('installs again over its own build’s cache', async () => {
    const worker = started();
    await worker.caches.open('app-shell-screens-2000-build-b');
    await expect(worker.lifecycle('install')).resolves.toBeUndefined();
  });
});

describe('the off switch (SERVICE_WORKER=off)', () => {
  it('answers nothing, deletes every cache of its own, keeps the origin’s others, and unregisters', async () => {
    const worker = started({ on: false, build: { id: 'build-a', time: 1000 } });
    expect(worker.listeners.has('fetch')).toBe(false);
    await worker.caches.open('app-shell-screens-3000-build-c');
    await worker.caches.open('app-shell-screens-seen');
    await worker.caches.open('product-images');
    // Even over a newer build's worker: off means off.
    await worker.lifecycle('install');
    await worker.lifecycle('activate');
    expect(await worker.caches.keys()).toEqual(['product-images']);
    expect(worker.scope.registration.unregister).toHaveBeenCalled();
    expect(worker.scope.registration.navigationPreload.enable).not.toHaveBeenCalled();
  });
});
