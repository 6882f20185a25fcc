// Entry point of the lazily loaded SDK file (a webpack entry of its own, see next.config.js):
// hands `startSdk` to the reporter that loaded it, through a process slot rather than an import,
// so this file does not carry a second copy of the reporter.
import { writeSlot } from '../../process/slots';
import { startSdk } from './sdk';

writeSlot('browserSdk', startSdk);
