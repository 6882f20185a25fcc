// The service worker, as a function of the worker's global scope and the build's settings, so that
// unit tests can run it against a fake scope. `npm run build` turns this module's compiled text into
// the worker's script, with the build's settings as the argument (./script.ts). So it must not
// import anything at run time: type imports only, which a test checks.
//
// What it promises (docs/unavailable-screens.md):
// - Navigations only, always from the network (with navigation preload): it never serves a page, an
//   API answer, /_next/data or the tunnel from any cache, and it never touches other requests.
// - When a navigation cannot reach the app, the shell's screen instead of the browser's or the
//   balancer's: `offline` when the browser says it has no network, or has said so and nothing came
//   from the network since; `unavailable` when the connection failed anyway or a 502, 503 or 504
//   came without the app's mark (ANSWER_HEADER). Both are in this script; its one cache holds
//   nothing but which screens were seen.
// - Before `unavailable`, one more try, after a short wait (RETRY_WAIT_MS, ±50 % so that a fleet's
//   visitors do not all come back in the same instant): a GET navigation is safe to send again, and
//   an instance that just died or a balancer between two instances usually answers the second.
//   Next's client-side data requests end in such a navigation when they fail, so they get it too.
// - Screens seen are counted when the visitor is back: on the next navigation the network answers,
//   one empty POST per screen to SCREEN_SEEN_PATH.
// - A new build's worker replaces the old one on the next visit (skipWaiting); an older build's
//   worker never replaces a newer one, so during a rolling update a visitor does not flip between
//   the two builds' workers with every update check.
// - Built with SERVICE_WORKER=off, it answers nothing, deletes the caches and unregisters itself.
import type { OutageKind } from '../screens/types';

/** The wait before a failed navigation is tried again: this, ±50 %. */
export const RETRY_WAIT_MS = 1000;

export interface WorkerSettings {
  /** false: the off switch. */
  on: boolean;
  /** This build: its time orders builds, its id tells two builds of one time apart. */
  build: { id: string; time: number };
  /** Every cache this worker makes starts with it; other caches of the origin are not its own. */
  cachePrefix: string;
  answerHeader: string;
  balancerStatuses: readonly number[];
  seenPath: string;
  /** Each screen's whole HTML document. */
  screens: Record<OutageKind, string>;
  /** The headers each screen is answered with (its Content-Security-Policy among them). */
  screenHeaders: Record<string, string>;
}

// The parts of the service worker's global scope it uses: declared here because the project's
// TypeScript library is the DOM's, not the web worker's.
interface ExtendableEvent {
  waitUntil(promise: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  preloadResponse?: Promise<Response | undefined>;
  respondWith(response: Promise<Response>): void;
}
export interface WorkerScope {
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  caches: CacheStorage;
  fetch: typeof fetch;
  navigator: { onLine: boolean };
  registration: {
    unregister(): Promise<boolean>;
    navigationPreload?: { enable(): Promise<void> };
  };
  skipWaiting(): Promise<void>;
  setTimeout(callback: () => void, ms: number): unknown;
}

export function startWorker(scope: WorkerScope, settings: WorkerSettings): void {
  const { cachePrefix, build } = settings;
  const ownCache = `${cachePrefix}${build.time}-${build.id}`;
  /** Which screens were seen since the network last answered, kept across the worker's restarts. */
  const seenCache = `${cachePrefix}seen`;
  /** Whether seenCache may hold anything: true at every start, so the first navigation looks. */
  let maybeSeen = true;
  /**
   * Whether the browser has said it is offline since the network last answered. Once it has, only
   * an answer says the network is back, not `navigator.onLine` alone: Chromium's reads true again
   * after the next navigation, in the page and in this worker, while the network is still cut, and
   * a visitor offline throughout got `unavailable` for the navigation after that.
   */
  let offlineSinceAnswer = false;

  const isOwn = (name: string) => name.startsWith(cachePrefix);
  const timeOf = (name: string) => Number(name.slice(cachePrefix.length).split('-')[0]);

  scope.addEventListener('install', (event) => event.waitUntil(install()));
  scope.addEventListener('activate', (event) => event.waitUntil(activate()));
  if (settings.on) scope.addEventListener('fetch', onFetch);

  async function install(): Promise<void> {
    const names = (await scope.caches.keys()).filter(isOwn);
    // Failing the install keeps the newer worker: the browser drops this one.
    if (settings.on && names.some((name) => timeOf(name) > build.time))
      throw new Error(`A newer build's worker is installed; ${build.id} stays out.`);
    await scope.caches.open(ownCache);
    await scope.skipWaiting();
  }

  async function activate(): Promise<void> {
    for (const name of await scope.caches.keys()) {
      const stale = isOwn(name) && (!settings.on || (name !== ownCache && name !== seenCache));
      if (stale) await scope.caches.delete(name);
    }
    if (!settings.on) {
      await scope.registration.unregister();
      return;
    }
    // The navigation's request starts while the worker is still starting: no delay for a visitor.
    await scope.registration.navigationPreload?.enable();
  }

  function onFetch(event: FetchEvent): void {
    const { request } = event;
    if (request.mode !== 'navigate' || request.method !== 'GET') return;
    event.respondWith(navigate(event));
  }

  async function navigate(event: FetchEvent): Promise<Response> {
    let response = await fromApp(
      async () => (await event.preloadResponse) ?? (await scope.fetch(event.request)),
    );
    if (!response) {
      // Offline, no try can succeed: the screen says so at once.
      if (isOffline()) return screen('offline');
      await new Promise<void>((resolve) => scope.setTimeout(resolve, RETRY_WAIT_MS * (0.5 + Math.random())));
      response = await fromApp(() => scope.fetch(event.request));
      if (!response) return screen(isOffline() ? 'offline' : 'unavailable');
    }
    if (maybeSeen) event.waitUntil(sayScreensSeen());
    return response;
  }

  /** Whether the visitor has no network, as far as the worker can tell (offlineSinceAnswer). */
  function isOffline(): boolean {
    if (!scope.navigator.onLine) offlineSinceAnswer = true;
    return offlineSinceAnswer;
  }

  /** The app's answer; null when none came (the connection failed) or a balancer's failure came. */
  async function fromApp(ask: () => Promise<Response>): Promise<Response | null> {
    try {
      const response = await ask();
      // Any answer, a balancer's 503 too, is the network back: a failure now is the app's.
      offlineSinceAnswer = false;
      const balancers =
        settings.balancerStatuses.includes(response.status) && !response.headers.has(settings.answerHeader);
      return balancers ? null : response;
    } catch {
      return null;
    }
  }

  async function screen(kind: OutageKind): Promise<Response> {
    try {
      maybeSeen = true;
      await (await scope.caches.open(seenCache)).put(`${settings.seenPath}/${kind}`, new Response(''));
    } catch {
      // No storage (quota, privacy mode): the screen is shown all the same, and not counted.
    }
    return new Response(settings.screens[kind], { status: 503, headers: settings.screenHeaders });
  }

  /** One POST per screen seen; each is forgotten before it is sent, so none is counted twice. */
  async function sayScreensSeen(): Promise<void> {
    try {
      maybeSeen = false;
      const cache = await scope.caches.open(seenCache);
      for (const seen of await cache.keys()) {
        await cache.delete(seen);
        await scope.fetch(seen.url, { method: 'POST' }).catch(() => undefined);
      }
    } catch {
      // As above.
    }
  }
}
