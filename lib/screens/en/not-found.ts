import type { ScreenCopy } from '../types';

export const notFound: ScreenCopy = {
  kind: 'not-found',
  heading: 'Page not found',
  paragraphs: [
    'If you typed the web address, check it is correct.',
    'If you pasted the web address, check you copied the entire address.',
    'If the web address is correct or you selected a link, the page may have moved or no longer exist.',
  ],
};
