import type { ScreenCopy } from '../types';

// After GOV.UK's "Service unavailable" pattern: say it is unavailable, that it is not the
// visitor's doing, and what happens next (the page tries again by itself).
export const unavailable: ScreenCopy = {
  kind: 'unavailable',
  heading: 'Sorry, the service is unavailable',
  paragraphs: [
    'Nothing you did caused this: the service is not answering at the moment.',
    'This page will try again by itself and show what you asked for as soon as the service is back.',
  ],
};
