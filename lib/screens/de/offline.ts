import type { ScreenCopy } from '../types';

export const offline: ScreenCopy = {
  kind: 'offline',
  heading: 'Sie sind nicht mit dem Internet verbunden',
  paragraphs: [
    'Diese Seite konnte nicht geladen werden, weil Ihr Gerät keine Verbindung mehr hat. Es liegt nicht an etwas, das Sie auf dieser Website getan haben.',
    'Die Seite lädt von selbst, sobald Sie wieder verbunden sind.',
  ],
};
