import type { ScreenCopy } from '../types';

export const clientException: ScreenCopy = {
  kind: 'client-exception',
  heading: 'عذرًا، توقفت هذه الصفحة عن العمل',
  paragraphs: ['حدث خطأ أثناء عرض هذه الصفحة.', 'أعد تحميل الصفحة لتحاول مرة أخرى.'],
};
