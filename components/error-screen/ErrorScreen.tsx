import Head from 'next/head';
import type { ErrorKind } from '../../lib/errors/status';
import { site } from '../../lib/config/site';
import { useHydrated } from '../../lib/client/use-hydrated';
import { Reference } from '../reference/Reference';
import { screenCopy } from './copy';
import styles from './ErrorScreen.module.css';

export interface ErrorScreenProps {
  kind: ErrorKind;
  /** An error report's id, shown so a person can quote it. */
  reference?: string;
  /** For a server error: a same-origin path that retries the request (works with JavaScript off). */
  retryHref?: string;
  /** For a client exception caught by a boundary: re-render instead of reloading. */
  onRetry?: () => void;
}

/** The one screen every error ends on: 404, other 4xx, 5xx and client-side exceptions. */
export function ErrorScreen({ kind, reference, retryHref, onRetry }: ErrorScreenProps) {
  const hydrated = useHydrated();
  const copy = screenCopy[kind];
  const title = `${copy.heading} – ${site.serviceName}`;

  return (
    <>
      <Head>
        <title>{title}</title>
        <meta name="robots" content="noindex" />
      </Head>
      <main className={styles.main} data-error-kind={kind}>
        <h1 className={styles.heading}>{copy.heading}</h1>
        {copy.paragraphs.map((text) => (
          <p className={styles.paragraph} key={text}>
            {text}
          </p>
        ))}
        {site.contact && (
          <p className={styles.paragraph}>
            If you need help, <a href={site.contact.href}>{site.contact.label}</a>.
          </p>
        )}
        <div className={styles.actions}>
          {kind === 'client-exception' && hydrated && (
            <button
              type="button"
              className={styles.button}
              onClick={onRetry ?? (() => window.location.reload())}
            >
              {onRetry ? 'Try again' : 'Reload the page'}
            </button>
          )}
          {kind === 'server-error' && retryHref && (
            <a className={styles.button} href={retryHref}>
              Try again
            </a>
          )}
          {kind !== 'client-exception' && hydrated && (
            <button type="button" className={styles.secondary} onClick={() => window.history.back()}>
              Go back to the previous page
            </button>
          )}
          {site.homeHref && (
            <a className={styles.secondary} href={site.homeHref}>
              Go to the home page
            </a>
          )}
        </div>
        {reference && <Reference id={reference} />}
      </main>
    </>
  );
}
