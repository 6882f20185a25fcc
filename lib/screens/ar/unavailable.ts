import type { ScreenCopy } from '../types';

export const unavailable: ScreenCopy = {
  kind: 'unavailable',
  heading: 'عذرًا، الخدمة غير متاحة',
  paragraphs: [
    'لم يحدث هذا بسبب أي شيء فعلته: الخدمة لا تستجيب في الوقت الحالي.',
    'ستحاول هذه الصفحة مرة أخرى تلقائيًا وستعرض ما طلبته بمجرد عودة الخدمة.',
  ],
};
