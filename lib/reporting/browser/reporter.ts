// The part of browser error reporting that is in every page's first-load JS, so it stays tiny:
// an early buffer for errors that happen before the SDK loads, a `report` function with a
// synchronous reference id, and the idle-time loader of the SDK itself (./sdk.ts).
//
// Without SENTRY_DSN at build time the SDK file is not built, its URL is '', and every function
// below returns at once, so no browser downloads Sentry code.
import { afterLoad } from '../../client/after-load';
import { isLostAsset } from '../../fleet/recovery';
import { markReported, newEventId, referenceOf } from '../reference';
import type { LoadedSdk, Mechanism, SdkLoadedEvent } from './types';

export type { Mechanism };

/** error, event id, mechanism (a tuple: this file is in every page's first-load JS). */
type Pending = [unknown, string, Mechanism];

/** Errors kept while the SDK loads; a page throwing in a loop must not grow memory without bound. */
const MAX_PENDING = 30;

const pending: Pending[] = [];
let sdk: LoadedSdk | null = null;

// Where the build put the SDK file (next.config.js), or '' when the build had no DSN. Read here
// rather than through lib/config/build-values.ts because webpack replaces it in this module itself,
// so the minifier can drop everything below from every page when reporting is off.
const SDK_URL = process.env.APP_SENTRY_SDK_URL ?? '';
// The same SDK with tracing, for sampled visitors; '' when the build traces nothing
// (SENTRY_TRACES_SAMPLE_RATE 0), so the choice below folds away too.
// Stryker disable next-line StringLiteral: the build sets both this and the rate above 0, or neither (next.config.ts).
const TRACING_URL = process.env.APP_SENTRY_TRACING_URL ?? '';
// Above 0 exactly when the build made TRACING_URL (next.config.ts); unary + so the minifier folds it.
const TRACES_SAMPLE_RATE = +process.env.APP_SENTRY_TRACES_SAMPLE_RATE!;

function enabled(): boolean {
  return SDK_URL !== '' && typeof window !== 'undefined';
}

/**
 * Reports an error; returns the event id a screen can show, or undefined when reporting is off.
 * The same error object is reported once. Never throws.
 */
export function reportBrowserError(error: unknown, mechanism: Mechanism): string | undefined {
  // A build file that did not load is not the application's error (lib/fleet/recovery.ts).
  if (!enabled() || isLostAsset(error)) return undefined;
  // No try/catch needed: referenceOf and markReported guard themselves, sdk.capture catches.
  const existing = referenceOf(error);
  if (existing) return existing;
  const id = newEventId();
  markReported(error, id);
  if (sdk) sdk.capture(error, id, mechanism);
  else if (pending.length < MAX_PENDING) pending.push([error, id, mechanism]);
  return id;
}

// The page's uncaught errors and unhandled rejections, for the page's whole life: buffered until the
// SDK loads, then handed to it. The SDK's own global handlers are not installed (./sdk.ts): one path
// for every error, and no listeners to swap when the SDK arrives.
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
  afterLoad(run);
}

function onSdkLoaded(event: Event) {
  try {
    // Anything but the SDK's start function throws here, and is caught below.
    const loaded = (event as CustomEvent<() => LoadedSdk>).detail();
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
  // Tracing code for a sampled visitor only. The server's decision for this document wins (its
  // `sentry-trace` meta tag ends in -1 or -0: the decision travels with the trace); a page without
  // one (a static page) draws against the build's rate. The rate is a constant of the build, so
  // all of this folds away when it is 0 (this is in every page's first-load JS).
  let src = SDK_URL;
  if (TRACES_SAMPLE_RATE > 0) {
    const decided = (document.getElementsByName('sentry-trace')[0] as HTMLMetaElement | undefined)?.content;
    if (decided ? /-1$/.test(decided) : Math.random() < TRACES_SAMPLE_RATE) src = TRACING_URL;
  }
  script.src = src;
  // Offline or blocked: the page keeps working and nothing is reported.
  document.head.appendChild(script);
}

/**
 * Call once, as early as possible: from the module scope of _app, which runs once per page (no
 * guard against a second call: it would cost every page bytes for a call nothing makes).
 */
export function startBrowserReporting(): void {
  if (!enabled()) return;
  // (The global's own, unqualified: every byte of this file is in every page's first-load JS.)
  addEventListener('error', onError);
  addEventListener('unhandledrejection', onRejection);
  whenIdle(loadSdk);
}
