// The page's side of the service worker: registered once the page has loaded, so it competes with
// nothing the page needs, and only in builds made with SERVICE_WORKER=on (never `npm run dev`, whose
// bundles are built without it): APP_SERVICE_WORKER is '' there, and the whole call folds away. In
// every page's first-load JS, so every byte is weighed (bench/page-weight-budget.json). A failed
// registration (a browser or a window that refuses workers) changes nothing for the page.
import { afterLoad } from '../client/after-load';
import { languagesQuery } from '../language/visitor-languages';
import { WORKER_PATH } from './paths';

export function registerServiceWorker(): void {
  // Named literally (not through lib/config/build-values.ts) so the build folds it to a constant
  // here: a call into that module would weigh more than all of this.
  if (typeof window === 'undefined' || !process.env.APP_SERVICE_WORKER) return;
  // No serviceWorker on an insecure origin (plain http but for localhost): nothing to do there.
  // With the visitor's languages: the server hands out the worker whose screens are in theirs.
  afterLoad(() =>
    navigator.serviceWorker?.register(WORKER_PATH + languagesQuery(), { scope: '/' }).catch(() => {}),
  );
}
