// Answers for requests that should never reach Next: odd request targets, CONNECT, and requests
// Node's parser rejects. Each gets a clear 4xx with the security headers, never a crash or a hang.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { securityHeaders } from '../http/security-headers';
import { sendPlain, writePlainToSocket } from '../http/plain-response';
import { sendProblem } from '../http/problem';
import { isApiPath, QUERY_MAX_PARAMS } from '../http/query-bound';
import { parseRequestTarget } from '../http/request-target';

export const ALLOW = 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE';

const ASTERISK_OPTIONS_HEADERS = { ...securityHeaders(), Allow: ALLOW, 'Cache-Control': 'no-store' };

/** Normalises `req.url` to a path, or answers the request itself. Returns true when it answered. */
export function answeredBeforeNext(req: IncomingMessage, res: ServerResponse): boolean {
  // HTTP/1.1 requires Host (RFC 9112 §3.2). The server turns off Node's own check, whose 400
  // carries none of the security headers, and makes it here.
  if (req.httpVersion === '1.1' && !req.headers.host) {
    sendPlain(res, 400, 'Bad request: HTTP/1.1 requests need a Host header.');
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
 * Whether a response to an earlier request on this connection is still being written (a pipelined
 * request can fail to parse while the one before it is answered). Node keeps that response on the
 * socket as `_httpMessage` until it finishes; its own clientError handler reads the same field.
 */
export function responseInFlight(socket: Duplex): ServerResponse | null {
  const response = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  return response && !response.writableFinished ? response : null;
}

/**
 * Whether the request being read was already answered: the server answered before its body
 * arrived (a 404 or 405 does not wait for it), and Node is discarding the rest. A timeout then is
 * the body's, and a 408 after that finished answer would be a reply to nothing.
 */
export function answeredBeforeItsBody(socket: Duplex): boolean {
  type Parser = { incoming?: (IncomingMessage & { _dumped?: boolean }) | null };
  const incoming = (socket as Duplex & { parser?: Parser | null }).parser?.incoming;
  return Boolean(incoming && !incoming.complete && incoming._dumped);
}

/**
 * Answers what never becomes a request: input Node's parser rejects, CONNECT, and protocol
 * upgrades (handed to `upgrade` when given: `npm run dev` passes Next's, for hot reloading).
 */
export function guardConnections(server: Server, upgrade?: UpgradeHandler): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // Stryker disable next-line StringLiteral: a missing code and any code not in the table are both a 400.
    const answer = clientErrorAnswer(error.code ?? '');
    if (!answer || answeredBeforeItsBody(socket)) {
      socket.destroy();
      return;
    }
    // Bytes written now would land inside (or be taken for) the answer to the request before:
    // let that answer finish, then close, with nothing written for the request that did not parse.
    const inFlight = responseInFlight(socket);
    if (inFlight) {
      // Stryker disable ConditionalExpression,StringLiteral,ArrowFunction: belt and braces. Node
      // already closes a connection whose parser failed once its last answer ends, which is all a
      // test can see (guards.test.ts); these say so here rather than leave it to Node's internals.
      if (!inFlight.headersSent) inFlight.shouldKeepAlive = false;
      inFlight.once('finish', () => socket.end());
      inFlight.once('close', () => socket.destroy());
      // Stryker restore ConditionalExpression,StringLiteral,ArrowFunction
      return;
    }
    writePlainToSocket(socket, answer.status, answer.message, {}, { head: isHeadRequest(error) });
  });
  // No proxying here: CONNECT gets a clear refusal instead of a dropped socket.
  server.on('connect', (_req, socket) => {
    writePlainToSocket(socket, 405, 'CONNECT is not supported.', { Allow: ALLOW });
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
          {},
          {
            head: req.method === 'HEAD',
          },
        )),
  );
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
