import { boundedHeader } from '../http/accept-bound';

/**
 * A browser's `navigator.languages` (comma-separated, as ./visitor-languages.ts sends it) as an
 * Accept-Language header: the order made into weights (1, 0.99, …), so the first language on offer
 * wins, whether a range or its shorter form matches it. Read as far as a header is.
 */
export function listAsHeader(list: string): string {
  return boundedHeader(list)
    .split(',')
    .map((range, index) => `${range.trim()};q=${Math.max(1 - index / 100, 0.01).toFixed(2)}`)
    .join(',');
}

/**
 * The `languages` a page sent in a request's address (./visitor-languages.ts) as an Accept-Language
 * header, or undefined when it sent none.
 */
export function languagesParameter(url: string | undefined): string | undefined {
  const list = new URLSearchParams(url?.split('?')[1]).get('languages');
  return list === null ? undefined : listAsHeader(list);
}
