// The words on each error screen, one module per state so a page carries only the states it can
// show (every page: "stopped working", for the _app boundary). Plain language after the GOV.UK
// Design System's "Page not found" and "There is a problem with the service" patterns: no status
// codes, no blame, always a next step.
import type { ErrorKind } from '../../../lib/errors/status';

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
