// Whether the page cache's store answers, as a health check: never critical, because a store that
// fails is a cache miss (pages are served from memory or the build, or rendered), never a reason to
// take an instance out of the load balancer. It warns, so an operator sees it in /api/health.
import type { SampledCheck } from './types';
import { processSlot } from '../process/slots';

/** What the check reads of the store (../page-cache/store.ts): nothing here does I/O. */
export interface StoreState {
  up: () => boolean;
  close: () => Promise<void>;
}

/** The store, when PAGE_CACHE_URL names one (../page-cache/handler.ts writes it). */
export const pageCacheStoreSlot = processSlot<StoreState>('pageCacheStore');

export const pageCacheStoreCheck: SampledCheck = {
  name: 'page-cache:store',
  componentType: 'datastore',
  critical: false,
  read: () => {
    const up = pageCacheStoreSlot.read()?.up() ?? false;
    return up
      ? { status: 'pass', observedValue: true, observedUnit: 'connected' }
      : {
          status: 'warn',
          observedValue: false,
          observedUnit: 'connected',
          output:
            'The page cache store does not answer: pages are served from memory or the build, or rendered',
        };
  },
};

/** The check, once a store is configured; none without one. */
export function pageCacheChecks(): readonly SampledCheck[] {
  return pageCacheStoreSlot.read() ? [pageCacheStoreCheck] : [];
}
