// The part of browser error reporting that is in every page's first-load JS, so it stays tiny:
// an early buffer for errors that happen before the SDK loads, a `report` function with a
// synchronous reference id, and the idle-time loader of the SDK itself (./sdk.ts).
//
// Without SENTRY_DSN at build time the SDK file is not built, its URL is '', and every function
// below returns at once, so no browser downloads Sentry code.
import { markReported, newEventId, referenceOf } from '../reference';
import type { LoadedSdk, Mechanism, SdkLoadedEvent } from './types';

export type { Mechanism };

/** error, event id, mechanism (a tuple: this file is in every page's first-load JS). */
type Pending = [unknown, string, Mechanism];

/** Errors kept while the SDK loads; a page throwing in a loop must not grow memory without bound. */
const MAX_PENDING = 30;

const pending: Pending[] = [];
let sdk: LoadedSdk | null = null;
let started = false;

// Where the build put the SDK file (next.config.js), or '' when the build had no DSN. Read here
// rather than through lib/config/build-values.ts because webpack replaces it in this module itself,
// so the minifier can drop everything below from every page when reporting is off.
const SDK_URL = process.env.APP_SENTRY_SDK_URL ?? '';

function enabled(): boolean {
  return SDK_URL !== '' && typeof window !== 'undefined';
}

/**
 * Reports an error; returns the event id a screen can show, or undefined when reporting is off.
 * The same error object is reported once. Never throws.
 */
export function reportBrowserError(error: unknown, mechanism: Mechanism): string | undefined {
  if (!enabled()) return undefined;
  // No try/catch needed: referenceOf and markReported guard themselves, sdk.capture catches.
  const existing = referenceOf(error);
  if (existing) return existing;
  const id = newEventId();
  markReported(error, id);
  if (sdk) sdk.capture(error, id, mechanism);
  else if (pending.length < MAX_PENDING) pending.push([error, id, mechanism]);
  return id;
}

const onError = (event: ErrorEvent) => {
  reportBrowserError(event.error ?? event.message, 'onerror');
};
const onRejection = (event: PromiseRejectionEvent) => {
  reportBrowserError(event.reason, 'onunhandledrejection');
};

function whenIdle(callback: () => void) {
  const run = () =>
    'requestIdleCallback' in window
      ? window.requestIdleCallback(callback, { timeout: 3000 })
      : setTimeout(callback, 1);
  if (document.readyState === 'complete') run();
  else window.addEventListener('load', run, { once: true });
}

function onSdkLoaded(event: Event) {
  try {
    // Anything but the SDK's start function throws here, and is caught below.
    const loaded = (event as CustomEvent<() => LoadedSdk>).detail();
    // From here the SDK's own global handlers catch what the buffer caught so far.
    window.removeEventListener('error', onError);
    window.removeEventListener('unhandledrejection', onRejection);
    sdk = loaded;
    for (const [error, id, mechanism] of pending.splice(0)) loaded.capture(error, id, mechanism);
  } catch {
    // A broken SDK must not break the page; the buffer keeps what it has.
  }
}

function loadSdk() {
  // The SDK is a webpack entry of its own (next.config.js), loaded by a plain script element: an
  // `import()` would put webpack's chunk-loading runtime (~800 bytes gzip) into every page. The
  // file announces itself with an event as it runs (./sdk-entry.ts).
  const loadedEvent: SdkLoadedEvent = 'app-shell:sdk-loaded';
  document.addEventListener(loadedEvent, onSdkLoaded, { once: true });
  const script = document.createElement('script');
  script.src = SDK_URL;
  // Offline or blocked: the page keeps working and nothing is reported.
  document.head.appendChild(script);
}

/** Call once, as early as possible (module scope of _app). */
export function startBrowserReporting(): void {
  if (!enabled() || started) return;
  started = true;
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
  whenIdle(loadSdk);
}
