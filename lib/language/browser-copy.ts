// The client-exception screen's words in the visitor's language, in the browser. Every page's
// first-load JavaScript carries English's (lib/screens/en/) and this loader, which
// once the page has loaded asks the server (./words-stage.ts) for the words of the first of
// `navigator.languages` it offers, so they are here before an error needs them. The server chooses,
// with the negotiator it uses for every screen, and the browser's cache keeps the answer: a lazy
// chunk per language, or a matcher and the list of languages in the bundle, cost every page's
// first-load JavaScript more than this (docs/error-screens.md has the figures).
import { afterLoad } from '../client/after-load';
import type { CommonCopy, ScreenCopy } from '../screens/types';
import { WORDS_PATH } from './paths';
import { languagesQuery } from './visitor-languages';

export interface BrowserCopy {
  words: CommonCopy;
  screen: ScreenCopy;
}

let loading: Promise<BrowserCopy | null> | null = null;
let loaded: BrowserCopy | null = null;

/**
 * The visitor's words, asked for once; null when they could not be had (the network is gone): then
 * the screen stays in the bundle's English, and a later call asks again.
 */
export function loadBrowserCopy(): Promise<BrowserCopy | null> {
  // (Every browser the build targets has fetch: Chrome 111, Safari 16.4 and the like.)
  loading ??= fetch(WORDS_PATH + languagesQuery())
    .then((answer) => (answer.ok ? answer.json() : Promise.reject()))
    .then(
      (copy: BrowserCopy) => (loaded = copy),
      () => (loading = null),
    );
  return loading;
}

/** The visitor's words if they are already here. */
export const loadedBrowserCopy = (): BrowserCopy | null => loaded;

/** Asks for the visitor's words once the page has loaded, before any error can need them. */
export function preloadBrowserCopy(): void {
  if (typeof window !== 'undefined') afterLoad(() => void loadBrowserCopy());
}
