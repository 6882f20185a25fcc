import type { ScreenCopy } from '../types';

export const clientException: ScreenCopy = {
  kind: 'client-exception',
  heading: 'Diese Seite funktioniert leider nicht mehr',
  paragraphs: [
    'Beim Anzeigen dieser Seite ist ein Fehler aufgetreten.',
    'Laden Sie die Seite neu, um es noch einmal zu versuchen.',
  ],
};
