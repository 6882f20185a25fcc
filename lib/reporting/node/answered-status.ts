// The status a request was really answered with, for deciding whether an error is reported. Next
// tells onRequestError about every thrown error, client errors included (its body parser's
// 400 "Invalid JSON", 413 "Body exceeded 1mb limit"), but not which status it then answered with,
// and an error's own statusCode property says nothing about it (an HTTP client's error for an
// upstream 404 is still answered 500). onRequestError does get the request's headers object, the
// very one Node made for the request: the server files each response under it, and the report
// waits until that response is done and reads its status.
// (Not an AsyncLocalStorage: on Node 20 one around every request cost 9-14 % of throughput here.
// Not a WeakMap either: one entry per request cost about 1 % of /api/health's throughput, in the
// garbage collector's handling of its entries.)
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';

/**
 * Where a request's headers object holds its response: a key shared by every copy of this module
 * in the process (the compiled server's, and Next's bundles'), as lib/process/slots.ts's are.
 */
const RESPONSE = Symbol.for('app-shell.responseOfHeaders');

type WithResponse = IncomingHttpHeaders & { [RESPONSE]?: ServerResponse };

/** Called by the server for each request it hands to Next (lib/server/pipeline.ts). */
export function rememberResponse(req: IncomingMessage, res: ServerResponse): void {
  try {
    // Not enumerable: a copy or a walk of the headers (a report's request data) never carries it.
    Object.defineProperty(req.headers, RESPONSE, { value: res, configurable: true });
  } catch {
    // (Node's headers objects take it. Without it, whenAnswered finds nothing and the error is
    // reported at once, as a 500.)
  }
}

/** What a response that never sent its headers (the connection closed first) counts as. */
const UNANSWERED = 500;

/** Where a response holds the status the server wrote past it, straight to its socket. */
// Stryker disable next-line StringLiteral: any one name does, so long as every copy uses the same (as RESPONSE's).
const ON_SOCKET = Symbol.for('app-shell.statusWrittenToSocket');

type WithSocketStatus = ServerResponse & { [ON_SOCKET]?: number };

/**
 * Called by the server when it answered a request on its socket instead of through `res` (a body
 * that did not parse, or came too slowly, while a route waited for it: lib/server/guards.ts): the
 * route's own error ("Invalid body", "aborted") is then judged by what the client got, a 4xx.
 */
export function noteStatusOnSocket(res: ServerResponse, status: number): void {
  (res as WithSocketStatus)[ON_SOCKET] = status;
}

function statusOf(res: ServerResponse): number {
  return res.headersSent ? res.statusCode : ((res as WithSocketStatus)[ON_SOCKET] ?? UNANSWERED);
}

/**
 * Calls `then` with the status of the response to the request with these headers once it is done,
 * and returns true; returns false when there is none to wait for (a request this app's server did
 * not see). Never throws, and never delays the response.
 */
export function whenAnswered(headers: unknown, then: (status: number) => void): boolean {
  try {
    // (Any value may come: a primitive has no such property, and null is caught below.)
    const res = (headers as WithResponse | undefined)?.[RESPONSE];
    if (!res) return false;
    if (res.writableFinished || res.destroyed) then(statusOf(res));
    else res.once('close', () => then(statusOf(res)));
    return true;
  } catch {
    return false;
  }
}
