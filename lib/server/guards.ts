// Answers for requests that should never reach Next: odd request targets, CONNECT, and requests
// Node's parser rejects. Each gets a clear 4xx with the security headers, never a crash or a hang.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { securityHeaders } from '../http/security-headers';
import { sendPlain, writePlainToSocket } from '../http/plain-response';
import { sendProblem } from '../http/problem';
import { isApiPath, QUERY_MAX_PARAMS } from '../http/query-bound';
import { parseRequestTarget } from '../http/request-target';
import { transferCodingIsReadable } from '../http/transfer-coding';
import { noteStatusOnSocket } from '../reporting/node/answered-status';
import { ANSWER_HEADER } from '../service-worker/paths';
import { requestStillArriving } from './connection-limit';

export const ALLOW = 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE';

const ASTERISK_OPTIONS_HEADERS = { ...securityHeaders(), Allow: ALLOW, 'Cache-Control': 'no-store' };

const UNREADABLE_BODY = 'Bad request: a Transfer-Encoding must end with chunked, and name it once.';

/** Normalises `req.url` to a path, or answers the request itself. Returns true when it answered. */
export function answeredBeforeNext(req: IncomingMessage, res: ServerResponse): boolean {
  // HTTP/1.1 requires Host (RFC 9112 §3.2). The server turns off Node's own check, whose 400
  // carries none of the security headers, and makes it here.
  if (req.httpVersion === '1.1' && !req.headers.host) {
    sendPlain(res, 400, 'Bad request: HTTP/1.1 requests need a Host header.');
    return true;
  }
  if (!transferCodingIsReadable(req.headers['transfer-encoding'])) {
    sendPlain(res, 400, UNREADABLE_BODY, { Connection: 'close' });
    return true;
  }
  const target = parseRequestTarget(req.url);
  if (target.kind === 'path') {
    req.url = target.path;
    return false;
  }
  if (target.kind === 'asterisk' && req.method === 'OPTIONS') {
    res.writeHead(204, ASTERISK_OPTIONS_HEADERS);
    res.end();
    return true;
  }
  sendPlain(res, 400, 'Bad request: the request target must be a path.');
  return true;
}

/** A query string with more parameters than Next can afford (lib/http/query-bound.ts). */
export const TOO_MANY_PARAMS_STATUS = 414;
const TOO_MANY_PARAMS = `The web address has more than ${QUERY_MAX_PARAMS} query parameters.`;

/**
 * Refuses a request whose query has too many parameters: API clients get problem details, browsers
 * the bad-request screen, rendered by Next (`renderScreen`) for the path without its query.
 * `req.url` must already be that path.
 */
export function refuseTooManyParams(
  req: IncomingMessage,
  res: ServerResponse,
  renderScreen: () => Promise<void>,
): void {
  if (isApiPath(req.url as string)) {
    sendProblem(res, TOO_MANY_PARAMS_STATUS, TOO_MANY_PARAMS, { method: req.method });
    return;
  }
  res.statusCode = TOO_MANY_PARAMS_STATUS;
  renderScreen().catch(() => sendPlain(res, TOO_MANY_PARAMS_STATUS, TOO_MANY_PARAMS));
}

/**
 * Whether a request Node could not parse asked with HEAD, from the bytes Node kept of it
 * (`rawPacket`): its answer then carries no body. A request that says nothing readable is not HEAD.
 */
export function isHeadRequest(error: object): boolean {
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) && raw.subarray(0, 5).toString('latin1') === 'HEAD ';
}

/** Parser errors Node reports, by code, and the status each deserves. */
export const CLIENT_ERROR_STATUS: Readonly<Record<string, number>> = {
  HPE_HEADER_OVERFLOW: 431,
  HPE_URI_TOO_LONG: 414,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADERS_TIMEOUT: 408,
};

/** The status and words a parser error gets, or null when the client is gone. */
export function clientErrorAnswer(code: string): { status: number; message: string } | null {
  if (code === 'ECONNRESET' || code === 'EPIPE') return null;
  const status = CLIENT_ERROR_STATUS[code] ?? 400;
  return { status, message: status === 400 ? 'Bad request.' : `${status}: request refused.` };
}

/**
 * The response on this connection that Node has not let go of yet, if any: Node keeps it on the
 * socket as `_httpMessage` until its 'finish' (its own clientError handler reads the same field).
 * Ended and all written already counts: its 'finish' is still to come, and with it the close.
 */
export function responseInFlight(socket: Duplex): ServerResponse | null {
  return (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage ?? null;
}

/**
 * Whether the request being read was already answered: the server answered before its body
 * arrived (a 404 or 405 does not wait for it), and Node is discarding the rest. A timeout then is
 * the body's, and a 408 after that finished answer would be a reply to nothing.
 */
export function answeredBeforeItsBody(socket: Duplex): boolean {
  const incoming = requestStillArriving(socket) as (IncomingMessage & { _dumped?: boolean }) | null;
  return Boolean(incoming?._dumped);
}

/**
 * What a parser error (or Node's request timeout) does to a connection with `inFlight` on it:
 * - `wait`: the answer being written is an earlier, whole request's, or is all given to the socket
 *   already: it finishes, then the connection closes, with nothing written for the input that failed
 *   (bytes now would land inside that answer, or be taken for it);
 * - `cut`: the failed input is the body of the request being answered and that answer has begun:
 *   the connection closes now, as Node's own handler does (there is no way to say more);
 * - `answer`: nothing is in flight, or the failed input is the body of a request whose answer has
 *   not begun (an API route waiting for it): the error's 4xx, then the connection closes.
 *   RFC 9112 §6.1: a body that cannot be read is a 400 and a closed connection; an answer that
 *   waited for it would wait for ever, since Node delivers no more of it.
 * Closing the connection is what tells a route still reading the body: Node aborts its request.
 */
export function parserErrorOutcome(inFlight: ServerResponse | null): 'wait' | 'cut' | 'answer' {
  if (!inFlight) return 'answer';
  if (inFlight.req.complete || inFlight.writableEnded) return 'wait';
  return inFlight.headersSent ? 'cut' : 'answer';
}

/** The headers of every answer written straight to a socket, beyond plainHeaders' own. */
export const SOCKET_ANSWER_HEADERS: Readonly<Record<string, string>> = { [ANSWER_HEADER]: '1' };

/**
 * Answers what never becomes a request: input Node's parser rejects, CONNECT, and protocol
 * upgrades (handed to `upgrade` when given: `npm run dev` passes Next's, for hot reloading).
 * `waitMs` bounds how long an answer in flight is waited for after its connection's input failed
 * (the server's request timeout): past it, the connection is cut.
 */
export function guardConnections(
  server: Server,
  upgrade?: UpgradeHandler,
  waitMs = server.requestTimeout,
): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Stryker disable next-line StringLiteral: a missing code and any code not in the table are both a 400.
    const answer = clientErrorAnswer(error.code ?? '');
    if (!answer || answeredBeforeItsBody(socket)) {
      socket.destroy();
      return;
    }
    const inFlight = responseInFlight(socket);
    switch (parserErrorOutcome(inFlight)) {
      case 'wait':
        closeOnceAnswered(inFlight as ServerResponse, socket, waitMs);
        return;
      case 'cut':
        socket.destroy();
        return;
      case 'answer':
        if (inFlight) noteStatusOnSocket(inFlight, answer.status);
        writePlainToSocket(socket, answer.status, answer.message, SOCKET_ANSWER_HEADERS, {
          head: isHeadRequest(error),
        });
    }
  });
  // No proxying here: CONNECT gets a clear refusal instead of a dropped socket.
  server.on('connect', (_req, socket) => {
    writePlainToSocket(socket, 405, 'CONNECT is not supported.', { ...SOCKET_ANSWER_HEADERS, Allow: ALLOW });
  });
  // WebSocket and other upgrades: nothing here accepts them in production, so say so instead of
  // leaving the socket open with no answer.
  server.on(
    'upgrade',
    upgrade ??
      ((req, socket) =>
        writePlainToSocket(
          socket,
          400,
          'Bad request: this server does not accept protocol upgrades.',
          SOCKET_ANSWER_HEADERS,
          { head: req.method === 'HEAD' },
        )),
  );
}

/** Lets `inFlight` finish, then closes its connection; cuts it if that takes longer than `waitMs`. */
function closeOnceAnswered(inFlight: ServerResponse, socket: Duplex, waitMs: number): void {
  // Stryker disable next-line ConditionalExpression: belt and braces; Node also closes a connection whose parser failed once its last answer ends.
  if (!inFlight.headersSent) inFlight.shouldKeepAlive = false;
  const cut = setTimeout(() => socket.destroy(), waitMs > 0 ? waitMs : DEFAULT_WAIT_MS);
  cut.unref();
  // Stryker disable StringLiteral,ArrowFunction: belt and braces, as above. Node already closes the
  // connection once that answer ends, which is all a test can see (guards.test.ts); and the cut,
  // unref'd, of a socket already closed does nothing.
  inFlight.once('finish', () => socket.end());
  inFlight.once('close', () => socket.destroy());
  socket.once('close', () => clearTimeout(cut));
  // Stryker restore StringLiteral,ArrowFunction
}

/** How long an answer in flight is waited for where the server has no request timeout (0). */
const DEFAULT_WAIT_MS = 30_000;

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
