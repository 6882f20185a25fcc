import type { CommonCopy } from '../types';

// Spanish: the words every screen shares.
export const common: CommonCopy = {
  lang: 'es',
  dir: 'ltr',
  help: { before: 'Si necesita ayuda, ', contactUs: 'póngase en contacto con nosotros', after: '.' },
  tryAgain: 'Intentar de nuevo',
  reload: 'Volver a cargar la página',
  goBack: 'Volver a la página anterior',
  goHome: 'Ir a la página de inicio',
  reference: {
    before: 'Si se pone en contacto con nosotros por este motivo, indique la referencia',
    copy: 'Copiar',
    copied: 'Copiada',
    copiedStatus: 'Referencia copiada',
    selectToCopy: 'Seleccione la referencia para copiarla',
  },
};
