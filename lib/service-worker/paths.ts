// What the server, the pages and the service worker share: where the worker is, where it says which
// screens visitors saw, and the header that marks an answer as the app's own.

/** The worker's script (scope `/`, allowed by its Service-Worker-Allowed header). */
export const WORKER_PATH = '/_next/app-shell/worker.js';
/** Where the worker says a visitor saw a screen: `POST <path>/offline` or `/unavailable`. */
export const SCREEN_SEEN_PATH = '/_next/app-shell/screen-seen';
/**
 * On every answer the app's server makes, whatever its status: a 502, 503 or 504 without it was
 * made by something in front of the app (a balancer), and gets the unavailable screen; one with it
 * (a 503 while draining, a health answer) is the app's own and is shown as it is.
 */
export const ANSWER_HEADER = 'x-app-shell-answer';
