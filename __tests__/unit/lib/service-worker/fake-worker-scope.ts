// A service worker's global scope as lib/service-worker/worker.ts uses it: events dispatched by
// hand, Cache Storage in memory, the network a function.
import type { WorkerScope } from '@lib/service-worker/worker';

type Listener = (event: never) => void;

export interface Navigation {
  url: string;
  mode?: string;
  method?: string;
  preload?: Promise<Response | undefined>;
}

export class FakeCaches {
  readonly stores = new Map<string, Map<string, Response>>();
  broken = false;

  async keys(): Promise<string[]> {
    return [...this.stores.keys()];
  }
  async delete(name: string): Promise<boolean> {
    return this.stores.delete(name);
  }
  async has(name: string): Promise<boolean> {
    return this.stores.has(name);
  }
  async open(name: string) {
    if (this.broken) throw new Error('QuotaExceededError');
    const store = this.stores.get(name) ?? new Map<string, Response>();
    this.stores.set(name, store);
    return {
      put: async (url: string, response: Response) => void store.set(url, response),
      keys: async () => [...store.keys()].map((url) => ({ url })),
      delete: async (request: { url: string }) => store.delete(request.url),
    };
  }
  /** Every URL any cache holds. */
  urls(): string[] {
    return [...this.stores.values()].flatMap((store) => [...store.keys()]);
  }
}

export function fakeWorkerScope({ online = true }: { online?: boolean } = {}) {
  const listeners = new Map<string, Listener>();
  const caches = new FakeCaches();
  const network = jest.fn<Promise<Response>, [unknown, RequestInit?]>();
  const waits: number[] = [];
  const scope = {
    addEventListener: (type: string, listener: Listener) => listeners.set(type, listener),
    caches: caches as unknown as CacheStorage,
    fetch: network as unknown as typeof fetch,
    navigator: { onLine: online },
    registration: {
      unregister: jest.fn(async () => true),
      navigationPreload: { enable: jest.fn(async () => {}) },
    },
    skipWaiting: jest.fn(async () => {}),
    // The worker's waits pass at once; each one asked for is kept in `waits`.
    setTimeout: (callback: () => void, ms: number) => {
      waits.push(ms);
      callback();
    },
  } satisfies WorkerScope;

  /** Runs a lifecycle event to its end; rejects as its waitUntil promise does. */
  async function lifecycle(type: 'install' | 'activate'): Promise<void> {
    const waits: Promise<unknown>[] = [];
    listeners.get(type)?.({ waitUntil: (promise: Promise<unknown>) => waits.push(promise) } as never);
    await Promise.all(waits);
  }

  /** A fetch event: what the worker answered with (undefined: it left the request to the browser). */
  async function navigate({ url, mode = 'navigate', method = 'GET', preload }: Navigation) {
    const waits: Promise<unknown>[] = [];
    let answer: Promise<Response> | undefined;
    listeners.get('fetch')?.({
      request: { url, mode, method } as Request,
      preloadResponse: preload ?? Promise.resolve(undefined),
      respondWith: (response: Promise<Response>) => (answer = response),
      waitUntil: (promise: Promise<unknown>) => waits.push(promise),
    } as never);
    const response = await answer;
    await Promise.all(waits);
    return response;
  }

  return { scope, caches, network, listeners, lifecycle, navigate, waits };
}
