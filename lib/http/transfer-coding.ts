// Whether a request's Transfer-Encoding leaves its body's length knowable (RFC 9112 §6.1: chunked
// must be the final coding, and applied once). Node's parser refuses any other, but only once the
// request has been handed to the server, after the headers: a stage that answers at once (a probe,
// "Page not found") would answer 200 or 404 to a request that must get 400. The pipeline asks this
// first, so every stage sees only requests Node will go on reading.
//
// The rule is llhttp's, read from what it does (not stricter: a request it reads must reach Next):
// the field is a comma-separated list (RFC 9110 §5.6.1: empty elements allowed, white space around
// each), several fields are one list in order (Node joins them with ", "), codings are
// case-insensitive; the last element must be `chunked` and no other element may be.

/** Whether a Transfer-Encoding value (undefined: none) lets the body be read. */
export function transferCodingIsReadable(value: string | undefined): boolean {
  if (value === undefined) return true;
  // (As long as Node's bound on a request's headers, 16 KiB, lets it be, and no longer.)
  const codings = value.split(',');
  const last = codings.length - 1;
  return codings.every((coding, at) => (coding.trim().toLowerCase() === 'chunked') === (at === last));
}
