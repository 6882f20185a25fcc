import type { ScreenCopy } from '../types';

export const badRequest: ScreenCopy = {
  kind: 'bad-request',
  heading: 'عذرًا، لا يمكن استخدام عنوان الويب هذا أو هذا الطلب',
  paragraphs: [
    'ربما يكون العنوان ناقصًا، أو يحتوي على أحرف لا يمكن استخدامها في عنوان ويب.',
    'تحقق من عنوان الويب، أو ارجع إلى الصفحة السابقة وحاول مرة أخرى.',
  ],
};
