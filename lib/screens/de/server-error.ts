import type { ScreenCopy } from '../types';

export const serverError: ScreenCopy = {
  kind: 'server-error',
  heading: 'Leider gibt es ein Problem mit dem Dienst',
  paragraphs: ['Versuchen Sie es jetzt noch einmal, oder später, wenn das Problem bleibt.'],
};
