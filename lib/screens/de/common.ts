import type { CommonCopy } from '../types';

// German: the words every screen shares.
export const common: CommonCopy = {
  lang: 'de',
  dir: 'ltr',
  help: { before: 'Wenn Sie Hilfe brauchen, ', contactUs: 'kontaktieren Sie uns', after: '.' },
  tryAgain: 'Erneut versuchen',
  reload: 'Seite neu laden',
  goBack: 'Zurück zur vorherigen Seite',
  goHome: 'Zur Startseite',
  reference: {
    before: 'Wenn Sie uns deswegen kontaktieren, nennen Sie die Referenz',
    copy: 'Kopieren',
    copied: 'Kopiert',
    copiedStatus: 'Referenz kopiert',
    selectToCopy: 'Markieren Sie die Referenz, um sie zu kopieren',
  },
};
