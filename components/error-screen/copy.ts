// The words on each error screen. Plain language after the GOV.UK Design System's "Page not found"
// and "There is a problem with the service" patterns: no status codes, no blame, always a next step.
import type { ErrorKind } from '../../lib/errors/status';

export interface ScreenCopy {
  /** The one <h1>; also the start of the <title>. */
  heading: string;
  paragraphs: string[];
}

export const screenCopy: Record<ErrorKind, ScreenCopy> = {
  'not-found': {
    heading: 'Page not found',
    paragraphs: [
      'If you typed the web address, check it is correct.',
      'If you pasted the web address, check you copied the entire address.',
      'If the web address is correct or you selected a link, the page may have moved or no longer exist.',
    ],
  },
  'bad-request': {
    heading: 'Sorry, this web address or request cannot be used',
    paragraphs: [
      'The address may be incomplete, or contain characters that cannot be used in a web address.',
      'Check the web address, or go back to the page you came from and try again.',
    ],
  },
  'server-error': {
    heading: 'Sorry, there is a problem with the service',
    paragraphs: ['Try again now, or later if it keeps happening.'],
  },
  'client-exception': {
    heading: 'Sorry, this page stopped working',
    paragraphs: ['Something went wrong while showing this page.', 'Reload the page to try again.'],
  },
};
