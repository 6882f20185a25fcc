// Entry point of the lazily loaded SDK file (a webpack entry of its own, see next.config.js):
// hands `startSdk` to the reporter that loaded it through a DOM event rather than an import, so
// this file does not carry a second copy of the reporter, and no global is needed.
import { startSdk } from './sdk';
import type { SdkLoadedEvent } from './types';

const loadedEvent: SdkLoadedEvent = 'app-shell:sdk-loaded';
document.dispatchEvent(new CustomEvent(loadedEvent, { detail: () => startSdk() }));
