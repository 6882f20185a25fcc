import type { CommonCopy } from '../types';

// French: the words every screen shares.
export const common: CommonCopy = {
  lang: 'fr',
  dir: 'ltr',
  help: { before: 'Si vous avez besoin d’aide, ', contactUs: 'contactez-nous', after: '.' },
  tryAgain: 'Réessayer',
  reload: 'Recharger la page',
  goBack: 'Revenir à la page précédente',
  goHome: 'Aller à la page d’accueil',
  reference: {
    before: 'Si vous nous contactez à ce sujet, indiquez la référence',
    copy: 'Copier',
    copied: 'Copiée',
    copiedStatus: 'Référence copiée',
    selectToCopy: 'Sélectionnez la référence pour la copier',
  },
};
