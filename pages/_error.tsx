import type { NextPageContext } from 'next';
import { ClientExceptionScreen } from '../components/error-screen/ClientExceptionScreen';
import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import { errorKindFor, statusFromContext } from '../lib/errors/status';
import { sameOriginPath } from '../lib/http/same-origin-path';
import { reportBrowserError } from '../lib/reporting/browser/reporter';
import { reportThroughServerHook } from '../lib/reporting/server-hook';

export interface ErrorPageProps {
  statusCode?: number;
  reference?: string;
  retryHref?: string;
  /** The screen's language, chosen by the server from Accept-Language (_document reads it too). */
  language?: string;
}

// A screen the server renders (a server error, a bad request) ships without any JavaScript: a
// heading, a sentence, a reference and a "Try again" link need no runtime. In the browser, this
// page only ever shows a client exception, from the bundle the page already runs. Next calls this
// page-level switch "unstable": __tests__/e2e/languages.test.ts fails the day it stops working.
export const config = { unstable_runtimeJS: false };

// The server's modules are required inside `typeof window === 'undefined'` branches: Next folds the
// test per bundle, and webpack then never reads the browser bundle's dead branch, so the languages'
// table and the negotiator stay out of it (an import would stay, used or not).
/* eslint-disable @typescript-eslint/no-require-imports */
type Languages = typeof import('../lib/screens/languages');
type Negotiate = typeof import('../lib/language/server-choice');

export default function ErrorPage({ statusCode, reference, retryHref, language }: ErrorPageProps) {
  if (typeof window === 'undefined') {
    const { copyIn } = require('../lib/screens/languages') as Languages;
    const { common, screens } = copyIn(language);
    return (
      <ErrorScreen
        copy={screens[errorKindFor(statusCode)]}
        words={common}
        reference={reference}
        retryHref={retryHref}
      />
    );
  }
  return <ClientExceptionScreen reference={reference} />;
}

/**
 * The reference a person can quote. On the server, the reporter returns the id the error was
 * already reported under (Next calls instrumentation's onRequestError before it renders this
 * page), or reports it now.
 */
function referenceFor({ res, err, pathname, req }: NextPageContext, statusCode: number | undefined) {
  if (!err) return undefined;
  // Next folds `typeof window` per bundle, so browsers never download the server branch.
  if (typeof window !== 'undefined') return reportBrowserError(err, 'next-error-page');
  if (!res || statusCode === undefined || statusCode < 500) return undefined;
  return reportThroughServerHook(err, {
    route: pathname,
    method: req?.method ?? 'GET',
    status: statusCode,
    path: req?.url,
    mechanism: '_error',
  });
}

/** The visitor's language, on the server; the answer then varies on the header. */
function languageFor({ req, res }: NextPageContext): string | undefined {
  if (typeof window === 'undefined' && req) {
    const { screenLanguageFor } = require('../lib/language/server-choice') as Negotiate;
    return screenLanguageFor(req, res);
  }
  return undefined;
}
/* eslint-enable @typescript-eslint/no-require-imports */

ErrorPage.getInitialProps = (context: NextPageContext): ErrorPageProps => {
  const { res, err, asPath } = context;
  const retryHref = sameOriginPath(asPath);
  let language: string | undefined;
  try {
    language = languageFor(context);
    const statusCode = statusFromContext({ res, err });
    const digest = (err as { digest?: unknown } | null | undefined)?.digest;
    const reference = referenceFor(context, statusCode) ?? (typeof digest === 'string' ? digest : undefined);
    return {
      statusCode,
      ...(reference ? { reference } : {}),
      ...(retryHref ? { retryHref } : {}),
      ...(language ? { language } : {}),
    };
  } catch {
    // The error page must not become a second failure: an error value that throws when read (a
    // hostile proxy, a getter that fails) still gets the service-problem screen.
    return {
      statusCode: res?.statusCode && res.statusCode >= 400 ? res.statusCode : 500,
      ...(language ? { language } : {}),
    };
  }
};
