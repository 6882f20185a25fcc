import type { ScreenCopy } from '../types';

export const unavailable: ScreenCopy = {
  kind: 'unavailable',
  heading: 'Désolé, le service est indisponible',
  paragraphs: [
    'Vous n’y êtes pour rien : le service ne répond pas pour le moment.',
    'Cette page réessaiera d’elle-même et affichera ce que vous avez demandé dès que le service sera rétabli.',
  ],
};
