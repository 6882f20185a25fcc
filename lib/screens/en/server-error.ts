import type { ScreenCopy } from '../types';

export const serverError: ScreenCopy = {
  kind: 'server-error',
  heading: 'Sorry, there is a problem with the service',
  paragraphs: ['Try again now, or later if it keeps happening.'],
};
