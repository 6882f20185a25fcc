import type { ScreenCopy } from '../types';

export const unavailable: ScreenCopy = {
  kind: 'unavailable',
  heading: 'Lo sentimos, el servicio no está disponible',
  paragraphs: [
    'No es culpa suya: el servicio no responde en este momento.',
    'Esta página lo volverá a intentar sola y mostrará lo que ha pedido en cuanto el servicio vuelva a funcionar.',
  ],
};
