import type { ScreenCopy } from '../types';

export const badRequest: ScreenCopy = {
  kind: 'bad-request',
  heading: 'Sorry, this web address or request cannot be used',
  paragraphs: [
    'The address may be incomplete, or contain characters that cannot be used in a web address.',
    'Check the web address, or go back to the page you came from and try again.',
  ],
};
