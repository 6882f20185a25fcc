// The browser's last resort when a build file is gone everywhere (no peer has it, nothing carried
// it): the page reloads once, and the fresh page comes from a build that has its files. Never an
// error report, since the application did nothing wrong; each reload is counted instead, through a
// beacon (LOST_FILE_PATH, ./lost-file-beacon.ts). In every page's first-load JS, whose budget is
// bare Next + 2 KiB (page-weight.test.ts): every byte here is weighed.
import { LOST_FILE_PATH } from './paths';

/** When this tab last reloaded for a lost file (sessionStorage: one tab, surviving the reload). */
const RELOADED_AT = 'app-shell:reloaded-at';
/** A file lost again this soon after a reload is not recovered by another: no loop. */
export const RELOAD_AGAIN_AFTER_MS = 30_000;

/** webpack's runtime, in the browser bundle: `e` loads a chunk (scripts and styles) for import(). */
declare const __webpack_require__: { e: (chunkId: string | number) => Promise<unknown> } | undefined;

/** What the recovery does to the page (unit tests replace them: jsdom can do neither). */
export const pageActions = {
  // Stryker disable next-line ArrowFunction: jsdom cannot reload; the e2e fleet test sees the reload.
  reload: () => location.reload(),
  beacon: (url: string) => navigator.sendBeacon(url),
};

/** webpack's error for a script chunk that did not load, or mini-css-extract's for a style chunk. */
export function isLostAsset(error: unknown): boolean {
  const lost = error as { name?: unknown; code?: unknown } | null | undefined;
  return lost?.name === 'ChunkLoadError' || lost?.code === 'CSS_CHUNK_LOAD_FAILED';
}

/**
 * A build file did not load: reloads the page and says so, unless this tab did so less than
 * RELOAD_AGAIN_AFTER_MS ago (which also makes a second lost file of the same page a no-op). Without
 * storage (a privacy mode) nothing happens, so there can be no loop. Never throws.
 */
export function recoverFromLostFile(): void {
  try {
    if (Date.now() - Number(sessionStorage.getItem(RELOADED_AT)) < RELOAD_AGAIN_AFTER_MS) return;
    sessionStorage.setItem(RELOADED_AT, String(Date.now()));
    pageActions.beacon(LOST_FILE_PATH);
    pageActions.reload();
  } catch {
    // No storage, no beacon: the page stays as it is.
  }
}

/**
 * Every lazy part (`import()`, `next/dynamic`, `React.lazy`, and their styles) loads through
 * webpack's chunk loader, and Next's loadable swallows its rejection, so neither an error boundary
 * nor 'unhandledrejection' sees every lost chunk: the loader is where to notice it. Call once from
 * _app's module scope.
 */
export function recoverLostAssets(): void {
  if (typeof __webpack_require__ === 'undefined' || typeof window === 'undefined') return;
  const runtime = __webpack_require__;
  const load = runtime.e;
  runtime.e = (chunkId) =>
    load(chunkId).catch((error: unknown) => {
      if (isLostAsset(error)) recoverFromLostFile();
      throw error;
    });
}
