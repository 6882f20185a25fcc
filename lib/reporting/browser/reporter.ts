// The part of browser error reporting that is in every page's first-load JS, so it stays tiny:
// an early buffer for errors that happen before the SDK loads, a `report` function with a
// synchronous reference id, and the idle-time loader of the SDK itself (./sdk.ts).
//
// Without SENTRY_DSN at build time there is no build DSN, and every function below
// returns at once; the SDK file is not even built, so no browser downloads Sentry code.
import { buildDsn } from '../../config/build-values';
import { readSlot } from '../../process/slots';
import { markReported, newEventId, referenceOf } from '../reference';
import type { LoadedSdk, Mechanism } from './types';

export type { Mechanism };

/** error, event id, mechanism (a tuple: this file is in every page's first-load JS). */
type Pending = [unknown, string, Mechanism];

/** Errors kept while the SDK loads; a page throwing in a loop must not grow memory without bound. */
const MAX_PENDING = 30;

const pending: Pending[] = [];
let sdk: LoadedSdk | null = null;
let started = false;

function enabled(): boolean {
  return buildDsn() !== null && typeof window !== 'undefined';
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

function loadSdk() {
  // The SDK is a webpack entry of its own (next.config.js), loaded by a plain script element: an
  // `import()` would put webpack's chunk-loading runtime (~800 bytes gzip) into every page.
  const script = document.createElement('script');
  script.src = process.env.APP_SENTRY_SDK_URL ?? '';
  script.onload = () => {
    // ./sdk-entry.ts leaves its start function in this slot.
    const start = readSlot('browserSdk');
    if (!start) return;
    try {
      const loaded = start();
      // From here the SDK's own global handlers catch what the buffer caught so far.
      window.removeEventListener('error', onError);
      window.removeEventListener('unhandledrejection', onRejection);
      sdk = loaded;
      for (const [error, id, mechanism] of pending.splice(0)) loaded.capture(error, id, mechanism);
    } catch {
      // A broken SDK must not break the page; the buffer keeps what it has.
    }
  };
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
