import type { ScreenCopy } from '../types';

export const clientException: ScreenCopy = {
  kind: 'client-exception',
  heading: 'Désolé, cette page a cessé de fonctionner',
  paragraphs: [
    'Un problème est survenu pendant l’affichage de cette page.',
    'Rechargez la page pour réessayer.',
  ],
};
