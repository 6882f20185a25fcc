// Whether a client takes a gzipped answer, from its Accept-Encoding, by `negotiator` (weights,
// `q=0` refusals and `*` as RFC 9110 §12.5.3 defines them), as far as a browser's header goes.
import Negotiator from 'negotiator';
import { boundedHeader } from './accept-bound';

export function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  try {
    return (
      new Negotiator({ headers: { 'accept-encoding': boundedHeader(header) } }).encoding([
        'gzip',
        'identity',
      ]) === 'gzip'
    );
  } catch {
    // Stryker disable next-line BooleanLiteral: a guard; no header tried makes Negotiator throw.
    return false;
  }
}
