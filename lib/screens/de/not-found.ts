import type { ScreenCopy } from '../types';

export const notFound: ScreenCopy = {
  kind: 'not-found',
  heading: 'Seite nicht gefunden',
  paragraphs: [
    'Wenn Sie die Webadresse eingetippt haben, prüfen Sie, ob sie richtig ist.',
    'Wenn Sie die Webadresse eingefügt haben, prüfen Sie, ob Sie die ganze Adresse kopiert haben.',
    'Wenn die Webadresse richtig ist oder Sie einem Link gefolgt sind, wurde die Seite vielleicht verschoben oder es gibt sie nicht mehr.',
  ],
};
