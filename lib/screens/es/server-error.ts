import type { ScreenCopy } from '../types';

export const serverError: ScreenCopy = {
  kind: 'server-error',
  heading: 'Lo sentimos, hay un problema con el servicio',
  paragraphs: ['Inténtelo de nuevo ahora, o más tarde si el problema continúa.'],
};
