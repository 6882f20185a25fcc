// Entry point of the lazily loaded SDK file (a webpack entry of its own, see next.config.js):
// hands `startSdk` to the reporter that loaded it. The key is reporter.ts's SDK_READY, spelled out
// rather than imported, so this file does not carry a second copy of the reporter.
import { startSdk } from './sdk';

(window as unknown as Record<symbol, unknown>)[Symbol.for('app-shell.sentry-sdk')] = startSdk;
