import type { AppProps } from 'next/app';
import { ErrorBoundary } from '../components/error-boundary/ErrorBoundary';
import { ClientExceptionScreen } from '../components/error-screen/ClientExceptionScreen';
import { recoverLostAssets } from '../lib/fleet/recovery';
import { preloadBrowserCopy } from '../lib/language/browser-copy';
import { reportBrowserError, startBrowserReporting } from '../lib/reporting/browser/reporter';
import { registerServiceWorker } from '../lib/service-worker/register';
import '../components/theme/global.css';

// As early as page code runs: buffers errors until the SDK loads when the page is idle.
startBrowserReporting();
// A lazy part whose build file is gone everywhere: one reload, never the error screen.
recoverLostAssets();
// The offline and unavailable screens, for when a later navigation cannot reach the app.
registerServiceWorker();
// The error screen's words in the visitor's language, before an error needs them.
preloadBrowserCopy();

export default function App({ Component, pageProps, router }: AppProps) {
  return (
    <ErrorBoundary
      resetKey={router.asPath}
      onError={(error) => reportBrowserError(error, 'react-error-boundary')}
      fallback={({ reset, reference }) => <ClientExceptionScreen onRetry={reset} reference={reference} />}
    >
      <Component {...pageProps} />
    </ErrorBoundary>
  );
}
