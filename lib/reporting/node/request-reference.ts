// The reference of the error reported for a request, for that request's log line: the reporter
// runs in Next's bundles, the request log in the server, and both know the request's headers object
// (the one Node made for it), which keys a process-wide map.
import type { IncomingHttpHeaders } from 'node:http';
import { processSlot } from '../../process/slots';

const referencesSlot = processSlot<WeakMap<IncomingHttpHeaders, string>>('referencesByHeaders');
let shared: WeakMap<IncomingHttpHeaders, string> | undefined;

function references(): WeakMap<IncomingHttpHeaders, string> {
  shared ??= referencesSlot.getOrCreate(() => new WeakMap());
  return shared;
}

/** Files `reference` under the request with these headers. Never throws. */
export function noteReference(headers: unknown, reference: string | undefined): void {
  try {
    // (A WeakMap refuses any other value, and the catch takes that.)
    if (reference && headers) references().set(headers as IncomingHttpHeaders, reference);
  } catch {
    // Only a log field is lost.
  }
}

/** The reference reported for the request with these headers, if any. */
export function referenceFor(headers: IncomingHttpHeaders): string | undefined {
  return references().get(headers);
}
