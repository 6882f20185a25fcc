import type { ScreenCopy } from '../types';

export const offline: ScreenCopy = {
  kind: 'offline',
  heading: 'Vous n’êtes pas connecté à internet',
  paragraphs: [
    'Cette page n’a pas pu se charger car votre appareil a perdu sa connexion. Rien de ce que vous avez fait sur ce site n’en est la cause.',
    'Cette page se chargera d’elle-même dès que vous serez de nouveau connecté.',
  ],
};
