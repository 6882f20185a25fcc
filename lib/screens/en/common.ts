import type { CommonCopy } from '../types';

// English: the words every screen shares.
export const common: CommonCopy = {
  lang: 'en',
  dir: 'ltr',
  help: { before: 'If you need help, ', contactUs: 'contact us', after: '.' },
  tryAgain: 'Try again',
  reload: 'Reload the page',
  goBack: 'Go back to the previous page',
  goHome: 'Go to the home page',
  reference: {
    before: 'If you contact us about this, quote reference',
    copy: 'Copy',
    copied: 'Copied',
    copiedStatus: 'Reference copied',
    selectToCopy: 'Select the reference to copy it',
  },
};
