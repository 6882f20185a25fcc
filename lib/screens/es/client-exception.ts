import type { ScreenCopy } from '../types';

export const clientException: ScreenCopy = {
  kind: 'client-exception',
  heading: 'Lo sentimos, esta página ha dejado de funcionar',
  paragraphs: [
    'Algo salió mal al mostrar esta página.',
    'Vuelva a cargar la página para intentarlo de nuevo.',
  ],
};
