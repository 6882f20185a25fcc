import type { ScreenCopy } from '../types';

export const notFound: ScreenCopy = {
  kind: 'not-found',
  heading: 'Page introuvable',
  paragraphs: [
    'Si vous avez saisi l’adresse web, vérifiez qu’elle est correcte.',
    'Si vous avez collé l’adresse web, vérifiez que vous l’avez copiée en entier.',
    'Si l’adresse web est correcte ou si vous avez suivi un lien, la page a peut-être été déplacée ou n’existe plus.',
  ],
};
