import type { ScreenCopy } from '../types';

export const badRequest: ScreenCopy = {
  kind: 'bad-request',
  heading: 'Lo sentimos, esta dirección web o esta solicitud no se puede usar',
  paragraphs: [
    'Puede que la dirección esté incompleta o que contenga caracteres que no se pueden usar en una dirección web.',
    'Compruebe la dirección web, o vuelva a la página anterior e inténtelo de nuevo.',
  ],
};
