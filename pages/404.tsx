import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import { defaultLanguage } from '../lib/language/offered';

// Prerendered to static HTML at build time (no data fetching), and shipped without any JavaScript:
// three sentences need no runtime, and the browser's Back is the way back. Next calls this
// page-level switch "unstable", so __tests__/e2e/page-weight.test.ts fails the day a Next upgrade
// brings scripts back into the built 404.html.
//
// In the default language. `npm run build` makes one from it per language (scripts/error-pages.ts),
// and the server answers unknown paths with the visitor's (lib/server/not-found.ts); Next answers
// with this one only what the server leaves to it.
export const config = { unstable_runtimeJS: false };

export default function NotFoundPage() {
  // Rendered at build time only; required in the server's branch so the page's own (never loaded)
  // browser file does not carry every language (pages/_error.tsx says why).
  if (typeof window === 'undefined') {
    type Languages = typeof import('../lib/screens/languages');
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { copyIn } = require('../lib/screens/languages') as Languages;
    const { common, screens } = copyIn(defaultLanguage());
    return <ErrorScreen copy={screens['not-found']} words={common} />;
  }
  return null;
}
