import { useEffect, useState } from 'react';
import { loadBrowserCopy, loadedBrowserCopy } from '../../lib/language/browser-copy';
import { clientException } from '../../lib/screens/en/client-exception';
import { ErrorScreen } from './ErrorScreen';

export interface ClientExceptionScreenProps {
  reference?: string | undefined;
  /** Re-render instead of reloading (the _app boundary). */
  onRetry?: (() => void) | undefined;
}

/**
 * "This page stopped working", in the browser, in the visitor's language (navigator.languages):
 * at once when its words were loaded after the page (lib/language/browser-copy.ts), else in
 * English until they arrive.
 */
export function ClientExceptionScreen({ reference, onRetry }: ClientExceptionScreenProps) {
  const [copy, setCopy] = useState(loadedBrowserCopy);
  // Already loaded: the same words again, and no new render. (Set after the screen is gone, the
  // state is simply dropped.)
  useEffect(() => void loadBrowserCopy().then(setCopy), []);
  return (
    <ErrorScreen
      copy={copy?.screen ?? clientException}
      words={copy?.words}
      reference={reference}
      onRetry={onRetry}
    />
  );
}
