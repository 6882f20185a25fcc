import type { ScreenCopy } from '../types';

// After GOV.UK's "Service unavailable" pattern, for the visitor's own connection: say what happened
// (their device is not connected), that it is nothing they did wrong, and what happens next (the
// page comes back by itself). Shown by the service worker (docs/unavailable-screens.md).
export const offline: ScreenCopy = {
  kind: 'offline',
  heading: 'You are not connected to the internet',
  paragraphs: [
    'This page could not load because your device has lost its connection. Nothing you did on this site caused it.',
    'This page will load by itself as soon as you are connected again.',
  ],
};
