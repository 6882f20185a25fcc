// Entry point of the lazily loaded SDK file (a webpack entry of its own, see next.config.js):
// hands `startSdk` to the reporter that loaded it through a DOM event rather than an import, so
// this file does not carry a second copy of the reporter, and no global is needed.
// Stryker disable all: a bundle's entry, run as a page loads it (the e2e tests load it in Chromium);
// what it starts is startSdk, tested in jsdom.
import { startSdk } from './sdk';
import type { SdkLoadedEvent } from './types';

const loadedEvent: SdkLoadedEvent = 'app-shell:sdk-loaded';
document.dispatchEvent(new CustomEvent(loadedEvent, { detail: () => startSdk() }));
