import type { ScreenCopy } from '../types';

export const offline: ScreenCopy = {
  kind: 'offline',
  heading: 'أنت غير متصل بالإنترنت',
  paragraphs: [
    'تعذّر تحميل هذه الصفحة لأن جهازك فقد اتصاله بالإنترنت. لم يحدث هذا بسبب أي شيء فعلته على هذا الموقع.',
    'ستُحمَّل هذه الصفحة تلقائيًا بمجرد أن تتصل مرة أخرى.',
  ],
};
