import type { ScreenCopy } from '../types';

export const notFound: ScreenCopy = {
  kind: 'not-found',
  heading: 'Página no encontrada',
  paragraphs: [
    'Si escribió la dirección web, compruebe que es correcta.',
    'Si pegó la dirección web, compruebe que copió la dirección completa.',
    'Si la dirección web es correcta o siguió un enlace, es posible que la página se haya movido o que ya no exista.',
  ],
};
