// The bound on open connections, enforced the way nginx enforces worker_connections: at the limit,
// the connection idle the longest (kept alive after its answer, or opened and not yet asked
// anything) is closed to admit the new one. Node's own `server.maxConnections` closes the new one
// instead, so connections that sent one request and then wait could lock every newcomer out,
// liveness probes included, for a whole keep-alive timeout. A newcomer is refused only when every
// connection has a request in flight.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
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
}

export function limitConnections(
  server: Server,
  maxConnections: number,
  now: () => number = () => performance.now(),
): ConnectionLimit {
  const live = new Set<Socket>();
  // Insertion order is idle order: the first is the one idle the longest.
  const idle = new Set<Socket>();
  const counts = { evicted: 0, refused: 0 };
  let loggedAt = -Infinity;
  const tell = () => {
    if (now() - loggedAt < CONNECTION_LOG_INTERVAL_MS) return;
    loggedAt = now();
    if (counts.evicted > 0)
      log('warn', 'server.idle_connections_closed', { count: counts.evicted, maxConnections });
    if (counts.refused > 0)
      log('warn', 'server.connections_refused', { count: counts.refused, maxConnections });
    counts.evicted = 0;
    counts.refused = 0;
  };

  server.on('connection', (socket: Socket) => {
    if (live.size >= maxConnections) {
      const [oldest] = idle;
      if (oldest === undefined) {
        counts.refused += 1;
        tell();
        socket.destroy();
        return;
      }
      idle.delete(oldest);
      live.delete(oldest);
      oldest.destroy();
      counts.evicted += 1;
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

  return { open: () => live.size, idle: () => idle.size, requestStarted };
}
