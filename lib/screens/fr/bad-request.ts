import type { ScreenCopy } from '../types';

export const badRequest: ScreenCopy = {
  kind: 'bad-request',
  heading: 'Désolé, cette adresse web ou cette demande ne peut pas être utilisée',
  paragraphs: [
    'L’adresse est peut-être incomplète, ou contient des caractères qui ne peuvent pas figurer dans une adresse web.',
    'Vérifiez l’adresse web, ou revenez à la page précédente et réessayez.',
  ],
};
