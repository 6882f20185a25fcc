// The status a request was really answered with, for deciding whether an error is reported. Next
// tells onRequestError about every thrown error, client errors included (its body parser's
// 400 "Invalid JSON", 413 "Body exceeded 1mb limit"), but not which status it then answered with,
// and an error's own statusCode property says nothing about it (an HTTP client's error for an
// upstream 404 is still answered 500). onRequestError does get the request's headers object, the
// very one Node made for the request: the server files each response under it, and the report
// waits until that response is done and reads its status.
// (Not an AsyncLocalStorage: on Node 20 one around every request cost 9-14 % of throughput here.)
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { processSlot } from '../../process/slots';

// The process-wide map, looked up once per copy of this module: rememberResponse runs on every
// request, and the slot lookup goes through the global symbol registry.
/** Each request's response, by its headers object. */
export const responsesSlot = processSlot<WeakMap<IncomingHttpHeaders, ServerResponse>>('responsesByHeaders');
let shared: WeakMap<IncomingHttpHeaders, ServerResponse> | undefined;

function responses(): WeakMap<IncomingHttpHeaders, ServerResponse> {
  shared ??= responsesSlot.getOrCreate(() => new WeakMap());
  return shared;
}

/** Called by the server for each request it hands to Next (lib/server/start.ts). */
export function rememberResponse(req: IncomingMessage, res: ServerResponse): void {
  responses().set(req.headers, res);
}

/** What a response that never sent its headers (the connection closed first) counts as. */
const UNANSWERED = 500;

function statusOf(res: ServerResponse): number {
  return res.headersSent ? res.statusCode : UNANSWERED;
}

/**
 * Calls `then` with the status of the response to the request with these headers once it is done,
 * and returns true; returns false when there is none to wait for (a request this app's server did
 * not see). Never throws, and never delays the response.
 */
export function whenAnswered(headers: unknown, then: (status: number) => void): boolean {
  try {
    const res =
      headers && typeof headers === 'object' ? responses().get(headers as IncomingHttpHeaders) : undefined;
    if (!res) return false;
    if (res.writableFinished || res.destroyed) then(statusOf(res));
    else res.once('close', () => then(statusOf(res)));
    return true;
  } catch {
    return false;
  }
}
