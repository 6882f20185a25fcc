import Head from 'next/head';
import { site } from '../../lib/config/site';
import { useHydrated } from '../../lib/client/use-hydrated';
import { Reference } from '../reference/Reference';
import { common as english } from '../../lib/screens/en/common';
import type { CommonCopy, ScreenCopy } from '../../lib/screens/types';

export interface ErrorScreenProps {
  /** Which state, with its words (lib/screens/). */
  copy: ScreenCopy;
  /** The words every screen of its language shares, and its `lang` and `dir`; English's by default. */
  words?: CommonCopy | undefined;
  /** An error report's id, shown so a person can quote it. */
  reference?: string | undefined;
  /** For a server error: a same-origin path that retries the request (works with JavaScript off). */
  retryHref?: string | undefined;
  /** For a client exception caught by a boundary: re-render instead of reloading. */
  onRetry?: (() => void) | undefined;
}

/** The one screen every error ends on: 404, other 4xx, 5xx and client-side exceptions. */
export function ErrorScreen({ copy, words = english, reference, retryHref, onRetry }: ErrorScreenProps) {
  const hydrated = useHydrated();
  const { kind } = copy;
  const title = `${copy.heading} – ${site.serviceName}`;

  return (
    <>
      <Head>
        <title>{title}</title>
        <meta name="robots" content="noindex" />
      </Head>
      {/* data-screen names the state for machines: tests, and browsers' code that must tell our
          screens from someone else's. */}
      {/* lang and dir here too: the boundary's screen shows inside a page of another language. */}
      <main className="es-main" data-screen={kind} lang={words.lang} dir={words.dir}>
        <h1 className="es-heading">{copy.heading}</h1>
        {copy.paragraphs.map((text) => (
          <p className="es-p" key={text}>
            {text}
          </p>
        ))}
        {site.contact && (
          <p className="es-p">
            {words.help.before}
            <a href={site.contact.href}>{site.contact.label ?? words.help.contactUs}</a>
            {words.help.after}
          </p>
        )}
        <div className="es-actions">
          {kind === 'client-exception' && hydrated && (
            <button type="button" className="es-button" onClick={onRetry ?? (() => window.location.reload())}>
              {onRetry ? words.tryAgain : words.reload}
            </button>
          )}
          {kind === 'server-error' && retryHref && (
            <a className="es-button" href={retryHref}>
              {words.tryAgain}
            </a>
          )}
          {/* Not on "Page not found", which ships no JavaScript: the browser's Back does the same. */}
          {(kind === 'bad-request' || kind === 'server-error') && hydrated && (
            <button type="button" className="es-button es-secondary" onClick={() => window.history.back()}>
              {words.goBack}
            </button>
          )}
          {site.homeHref && (
            <a className="es-button es-secondary" href={site.homeHref}>
              {words.goHome}
            </a>
          )}
        </div>
        {reference && <Reference id={reference} words={words.reference} />}
      </main>
    </>
  );
}
