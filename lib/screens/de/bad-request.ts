import type { ScreenCopy } from '../types';

export const badRequest: ScreenCopy = {
  kind: 'bad-request',
  heading: 'Diese Webadresse oder Anfrage kann leider nicht verwendet werden',
  paragraphs: [
    'Die Adresse ist vielleicht unvollständig oder enthält Zeichen, die in einer Webadresse nicht vorkommen dürfen.',
    'Prüfen Sie die Webadresse oder gehen Sie zurück zur vorherigen Seite und versuchen Sie es noch einmal.',
  ],
};
