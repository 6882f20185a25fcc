import type { CommonCopy } from '../types';

// Arabic: the words every screen shares.
export const common: CommonCopy = {
  lang: 'ar',
  dir: 'rtl',
  help: { before: 'إذا كنت بحاجة إلى مساعدة، ', contactUs: 'تواصل معنا', after: '.' },
  tryAgain: 'حاول مرة أخرى',
  reload: 'أعد تحميل الصفحة',
  goBack: 'ارجع إلى الصفحة السابقة',
  goHome: 'انتقل إلى الصفحة الرئيسية',
  reference: {
    before: 'إذا تواصلت معنا بشأن هذا، فاذكر الرقم المرجعي',
    copy: 'نسخ',
    copied: 'تم النسخ',
    copiedStatus: 'تم نسخ الرقم المرجعي',
    selectToCopy: 'حدد الرقم المرجعي لنسخه',
  },
};
