import type { NextPageContext } from 'next';
import { ErrorScreen } from '../components/error-screen/ErrorScreen';
import { errorKindFor, statusFromContext } from '../lib/errors/status';
import { sameOriginPath } from '../lib/http/same-origin-path';

export interface ErrorPageProps {
  statusCode?: number;
  reference?: string;
  retryHref?: string;
}

export default function ErrorPage({ statusCode, reference, retryHref }: ErrorPageProps) {
  return <ErrorScreen kind={errorKindFor(statusCode)} reference={reference} retryHref={retryHref} />;
}

ErrorPage.getInitialProps = ({ res, err, asPath }: NextPageContext): ErrorPageProps => {
  const statusCode = statusFromContext({ res, err });
  const digest = (err as { digest?: unknown } | null | undefined)?.digest;
  return {
    statusCode,
    ...(typeof digest === 'string' ? { reference: digest } : {}),
    ...(sameOriginPath(asPath) ? { retryHref: sameOriginPath(asPath) } : {}),
  };
};
