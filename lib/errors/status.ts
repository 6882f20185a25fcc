// Which error screen a failed request gets, from what Next hands to _error.

export type ErrorKind = 'not-found' | 'bad-request' | 'server-error' | 'client-exception';

interface StatusSource {
  res?: { statusCode?: number } | null;
  err?: { statusCode?: number } | null;
}

/**
 * The status as Next documents it for _error: the response's, then the error's, then 404.
 * Undefined means a client-side exception: an error in the browser with no status of its own.
 */
export function statusFromContext({ res, err }: StatusSource): number | undefined {
  if (res) return res.statusCode;
  if (err) return err.statusCode;
  return 404;
}

export function errorKindFor(statusCode: number | undefined): ErrorKind {
  if (statusCode === undefined) return 'client-exception';
  if (statusCode === 404 || statusCode === 410) return 'not-found';
  if (statusCode >= 400 && statusCode < 500) return 'bad-request';
  // A 2xx or 3xx reaching _error still means something failed: say so rather than pretend.
  return 'server-error';
}
