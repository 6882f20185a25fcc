// lib/screens: the screens' vocabulary (languages, outage kinds, each state's words), below both
// components/, which shows them, and the server, which chooses and serves them: it imports neither.
// The words on each error screen, one module per language and state (./<language>/<state>.ts), so a
// page carries only the words it can show: every page carries the default language's "stopped
// working", for the _app boundary, and a browser loads its visitor's language only when it needs it
// (lib/language/browser-copy.ts). Plain language after the GOV.UK Design System's "Page not found"
// and "There is a problem with the service" patterns: no status codes, no blame, always a next step.
// docs/error-screens.md says how to correct a language or add one.
import type { ErrorKind } from '../errors/status';

/**
 * Every screen: the four a request inside the app can end on; `unavailable`, shown when the app
 * cannot answer at all (the balancer's pages and the service worker); and `offline`, shown by the
 * service worker when the visitor's own connection is gone (docs/unavailable-screens.md).
 */
export type ScreenKind = ErrorKind | OutageKind;

/** The screens shown when the app cannot answer: the service worker's and the balancer's. */
export type OutageKind = 'offline' | 'unavailable';

export interface ScreenCopy {
  kind: ScreenKind;
  /** The one <h1>; also the start of the <title>. */
  heading: string;
  paragraphs: string[];
}

/** The words every screen of a language shares (./<language>/common.ts). */
export interface CommonCopy {
  /** The language's BCP 47 tag, as SCREEN_LANGUAGES lists it and `<html lang>` carries it. */
  lang: string;
  /** Which way the language is written: `<html dir>`. */
  dir: 'ltr' | 'rtl';
  /** "If you need help, <a>contact us</a>.": the words around the link, and the link's own words
   *  when NEXT_PUBLIC_CONTACT_LABEL is not set. */
  help: { before: string; contactUs: string; after: string };
  /** A server error's link that asks for the page again. */
  tryAgain: string;
  /** A client exception's button, when there is nothing to re-render but the page. */
  reload: string;
  goBack: string;
  goHome: string;
  reference: {
    /** "If you contact us about this, quote reference" (the reference follows). */
    before: string;
    copy: string;
    copied: string;
    /** Said to screen readers once the reference is copied, or could not be. */
    copiedStatus: string;
    selectToCopy: string;
  };
}

/** A language: its shared words and every screen's. */
export interface LanguageCopy {
  common: CommonCopy;
  screens: Record<ScreenKind, ScreenCopy>;
}
