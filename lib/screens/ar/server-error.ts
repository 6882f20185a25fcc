import type { ScreenCopy } from '../types';

export const serverError: ScreenCopy = {
  kind: 'server-error',
  heading: 'عذرًا، هناك مشكلة في الخدمة',
  paragraphs: ['حاول مرة أخرى الآن، أو لاحقًا إذا استمرت المشكلة.'],
};
