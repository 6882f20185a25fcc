import type { ScreenCopy } from '../types';

export const serverError: ScreenCopy = {
  kind: 'server-error',
  heading: 'Désolé, le service rencontre un problème',
  paragraphs: ['Réessayez maintenant, ou plus tard si le problème persiste.'],
};
