// The status a request was really answered with, for deciding whether an error is reported. Next
// tells onRequestError about every thrown error, client errors included (its body parser's
// 400 "Invalid JSON", 413 "Body exceeded 1mb limit"), but not which status it then answered with,
// and an error's own statusCode property says nothing about it (an HTTP client's error for an
// upstream 404 is still answered 500). The server runs each request inside an AsyncLocalStorage
// holding its response; the report waits until that response is done and reads its status.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ServerResponse } from 'node:http';
import { readSlot, slotOrCreate } from '../../process/slots';

/** The one per-process store; the server runs each request in it (lib/server/start.ts). */
export function responseStore(): AsyncLocalStorage<ServerResponse> {
  return slotOrCreate('currentResponse', () => new AsyncLocalStorage<ServerResponse>());
}

/** What a response that never sent its headers (the connection closed first) counts as. */
const UNANSWERED = 500;

function statusOf(res: ServerResponse): number {
  return res.headersSent ? res.statusCode : UNANSWERED;
}

/**
 * Calls `then` with the status of the current request's response once it is done, and returns
 * true; returns false when there is no response to wait for (code running outside the server's
 * requests, or without this app's server). Never throws, and never delays the response.
 */
export function whenAnswered(then: (status: number) => void): boolean {
  try {
    const res = readSlot('currentResponse')?.getStore();
    if (!res) return false;
    if (res.writableFinished || res.destroyed) then(statusOf(res));
    else res.once('close', () => then(statusOf(res)));
    return true;
  } catch {
    return false;
  }
}
