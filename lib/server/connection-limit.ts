// The bound on open connections, enforced the way nginx enforces worker_connections: at the limit,
// the connection idle the longest (kept alive after its answer, or opened and not yet asked
// anything) is closed to admit the new one. Node's own `server.maxConnections` closes the new one
// instead, so connections that sent one request and then wait could lock every newcomer out,
// liveness probes included, for a whole keep-alive timeout. With none idle, the connection open the
// longest whose request's body is still arriving goes next (a body trickled a byte at a time would
// otherwise hold its connection for the whole request timeout, and a few thousand of them every
// connection): it gets the request timeout's 408, as if its time had run out, since at the limit
// the server can wait for it no longer. A newcomer is refused only when every connection has a
// whole request the server is answering: those end by themselves.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { log } from '../log/logger';

/** How often, at most, closed and refused connections are logged. */
export const CONNECTION_LOG_INTERVAL_MS = 10_000;

export interface ConnectionLimit {
  /** Connections open now. */
  open: () => number;
  /** Of those, the ones with no request in flight. */
  idle: () => number;
  /** Called for every request: its connection is busy until the response is sent. */
  requestStarted: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * Times out every request whose body is still arriving (a 408, through the server's clientError
   * handler, as Node's request timeout does): the shutdown calls it once the server has stopped
   * accepting, since Node's own timer stops with `server.close()`. Returns how many.
   */
  timeOutReceiving: () => number;
}

/** The request a connection is still reading the body of, if any (Node's parser holds it). */
export function requestStillArriving(socket: Duplex): IncomingMessage | null {
  type Parser = { incoming?: IncomingMessage | null };
  const incoming = (socket as Duplex & { parser?: Parser | null }).parser?.incoming;
  return incoming && !incoming.complete ? incoming : null;
}

/** The error Node's request timeout hands the clientError handler, made here for the same answer. */
export function requestTimedOut(): NodeJS.ErrnoException {
  // Stryker disable next-line StringLiteral: never shown; the handler answers by the code (./guards.ts).
  return Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' });
}

export function limitConnections(
  server: Server,
  maxConnections: number,
  now: () => number = () => performance.now(),
): ConnectionLimit {
  const live = new Set<Socket>();
  // Insertion order is idle order: the first is the one idle the longest.
  const idle = new Set<Socket>();
  const counts = { evicted: 0, stalled: 0, refused: 0 };
  let loggedAt = -Infinity;
  const tell = () => {
    if (now() - loggedAt < CONNECTION_LOG_INTERVAL_MS) return;
    loggedAt = now();
    if (counts.evicted > 0)
      log('warn', 'server.idle_connections_closed', { count: counts.evicted, maxConnections });
    if (counts.stalled > 0)
      log('warn', 'server.arriving_requests_timed_out', { count: counts.stalled, maxConnections });
    if (counts.refused > 0)
      log('warn', 'server.connections_refused', { count: counts.refused, maxConnections });
    counts.evicted = 0;
    counts.stalled = 0;
    counts.refused = 0;
  };

  /** Answers a connection's arriving request 408 and closes it (./guards.ts), as Node's timer would. */
  const timeOut = (socket: Socket) => {
    live.delete(socket);
    // (The server always has that handler; were it missing, the connection still goes.)
    if (!server.emit('clientError', requestTimedOut(), socket)) socket.destroy();
  };

  /** Whether a connection is busy reading a request's body (not one answered and idle again). */
  const isArriving = (socket: Socket) => !idle.has(socket) && requestStillArriving(socket) !== null;

  /** The connection open the longest whose request's body is still arriving, if any. */
  const longestArriving = (): Socket | undefined => {
    for (const socket of live) if (isArriving(socket)) return socket;
    return undefined;
  };

  server.on('connection', (socket: Socket) => {
    if (live.size >= maxConnections) {
      const [oldest] = idle;
      if (oldest !== undefined) {
        idle.delete(oldest);
        live.delete(oldest);
        oldest.destroy();
        counts.evicted += 1;
      } else {
        const arriving = longestArriving();
        if (arriving === undefined) {
          counts.refused += 1;
          tell();
          socket.destroy();
          return;
        }
        timeOut(arriving);
        counts.stalled += 1;
      }
      tell();
    }
    live.add(socket);
    idle.add(socket);
    socket.once('close', () => {
      live.delete(socket);
      idle.delete(socket);
    });
  });

  const requestStarted = (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    idle.delete(socket);
    res.once('finish', () => {
      // Idle again, and now the most recently so, unless it is closing. (A socket leaves `live` only
      // once destroyed, so a destroyed one is the only one to keep out.)
      if (!socket.destroyed && res.shouldKeepAlive) idle.add(socket);
    });
  };

  const timeOutReceiving = () => {
    let count = 0;
    for (const socket of [...live]) {
      if (!isArriving(socket)) continue;
      timeOut(socket);
      count += 1;
    }
    return count;
  };

  return { open: () => live.size, idle: () => idle.size, requestStarted, timeOutReceiving };
}
