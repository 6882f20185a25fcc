import type { ScreenCopy } from '../types';

export const offline: ScreenCopy = {
  kind: 'offline',
  heading: 'No está conectado a internet',
  paragraphs: [
    'Esta página no se ha podido cargar porque su dispositivo ha perdido la conexión. No se debe a nada que haya hecho en este sitio.',
    'La página se cargará sola en cuanto vuelva a estar conectado.',
  ],
};
