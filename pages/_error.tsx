import type { NextPageContext } from 'next';
import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import { badRequest } from '../components/error-screen/copy/bad-request';
import { clientException } from '../components/error-screen/copy/client-exception';
import { notFound } from '../components/error-screen/copy/not-found';
import { serverError } from '../components/error-screen/copy/server-error';
import { type ErrorKind, errorKindFor, statusFromContext } from '../lib/errors/status';
import { sameOriginPath } from '../lib/http/same-origin-path';
import { reportBrowserError } from '../lib/reporting/browser/reporter';
import { reportThroughServerHook } from '../lib/reporting/server-hook';

export interface ErrorPageProps {
  statusCode?: number;
  reference?: string;
  retryHref?: string;
}

const SCREENS = {
  'not-found': notFound,
  'bad-request': badRequest,
  'server-error': serverError,
  'client-exception': clientException,
} satisfies Record<ErrorKind, unknown>;

export default function ErrorPage({ statusCode, reference, retryHref }: ErrorPageProps) {
  return <ErrorScreen copy={SCREENS[errorKindFor(statusCode)]} reference={reference} retryHref={retryHref} />;
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

ErrorPage.getInitialProps = (context: NextPageContext): ErrorPageProps => {
  const { res, err, asPath } = context;
  const retryHref = sameOriginPath(asPath);
  try {
    const statusCode = statusFromContext({ res, err });
    const digest = (err as { digest?: unknown } | null | undefined)?.digest;
    const reference = referenceFor(context, statusCode) ?? (typeof digest === 'string' ? digest : undefined);
    return {
      statusCode,
      ...(reference ? { reference } : {}),
      ...(retryHref ? { retryHref } : {}),
    };
  } catch {
    // The error page must not become a second failure: an error value that throws when read (a
    // hostile proxy, a getter that fails) still gets the service-problem screen.
    return { statusCode: res?.statusCode && res.statusCode >= 400 ? res.statusCode : 500 };
  }
};
