import type { AppProps } from 'next/app';
import { ErrorBoundary } from '../components/error-boundary/ErrorBoundary';
import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import '../components/theme/global.css';

export default function App({ Component, pageProps, router }: AppProps) {
  return (
    <ErrorBoundary
      resetKey={router.asPath}
      fallback={({ reset, reference }) => (
        <ErrorScreen kind="client-exception" onRetry={reset} reference={reference} />
      )}
    >
      <Component {...pageProps} />
    </ErrorBoundary>
  );
}
