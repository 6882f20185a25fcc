// The browser's last resort when a build file is gone everywhere (no peer has it, nothing carried
// it): the page reloads once, and the fresh page comes from a build that has its files. Never an
// error report, since the application did nothing wrong; every lost file is counted instead, through
// a beacon (LOST_FILE_PATH, ./lost-file-beacon.ts). In every page's first-load JS, so it stays tiny.
import { LOST_FILE_PATH } from './paths';

/** When this tab last reloaded for a lost file (sessionStorage: one tab, surviving the reload). */
const RELOADED_AT = 'app-shell:reloaded-at';
/** A file lost again this soon after a reload is not recovered by another: no loop. */
export const RELOAD_AGAIN_AFTER_MS = 30_000;

/** webpack's runtime, in the browser bundle: `e` loads a chunk (scripts and styles) for import(). */
declare const __webpack_require__: { e?: (chunkId: string | number) => Promise<unknown> } | undefined;

/** What the recovery does to the page (unit tests replace them: jsdom can do neither). */
export const pageActions = {
  reload: () => location.reload(),
  beacon: (url: string) => navigator.sendBeacon(url),
};

let reloading = false;

/** webpack's error for a script chunk that did not load, or mini-css-extract's for a style chunk. */
export function isLostAsset(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  return name === 'ChunkLoadError' || code === 'CSS_CHUNK_LOAD_FAILED';
}

/**
 * A build file did not load: reloads the page, unless this tab did so less than
 * RELOAD_AGAIN_AFTER_MS ago, and tells the server which. True when the page is reloading (also for
 * a second call before it has). Never throws.
 */
export function recoverFromLostFile(): boolean {
  if (reloading) return true;
  let reload: boolean;
  try {
    reload = Date.now() - Number(sessionStorage.getItem(RELOADED_AT)) >= RELOAD_AGAIN_AFTER_MS;
    if (reload) sessionStorage.setItem(RELOADED_AT, String(Date.now()));
  } catch {
    // No storage (a privacy mode): no reload either, so there can be no loop.
    reload = false;
  }
  try {
    pageActions.beacon(`${LOST_FILE_PATH}?recovery=${reload ? 'reload' : 'none'}`);
  } catch {
    // Counting is a nicety; the recovery goes on without it.
  }
  if (reload) {
    reloading = true;
    pageActions.reload();
  }
  return reload;
}

/**
 * Every lazy part (`import()`, `next/dynamic`, and their styles) loads through webpack's chunk
 * loader, and Next's loadable swallows its rejection, so neither an error boundary nor
 * 'unhandledrejection' ever sees a lost chunk: the loader itself is where to notice it. Call once
 * from _app's module scope.
 */
export function recoverLostAssets(): void {
  if (typeof window === 'undefined' || typeof __webpack_require__ === 'undefined') return;
  const runtime = __webpack_require__;
  const load = runtime.e;
  if (typeof load !== 'function') return;
  runtime.e = (chunkId) =>
    load.call(runtime, chunkId).catch((error: unknown) => {
      if (isLostAsset(error)) recoverFromLostFile();
      throw error;
    });
}
