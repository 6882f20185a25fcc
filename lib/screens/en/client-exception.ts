import type { ScreenCopy } from '../types';

export const clientException: ScreenCopy = {
  kind: 'client-exception',
  heading: 'Sorry, this page stopped working',
  paragraphs: ['Something went wrong while showing this page.', 'Reload the page to try again.'],
};
