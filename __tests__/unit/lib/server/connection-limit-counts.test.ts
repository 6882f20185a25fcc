// The connection limit's bookkeeping on made-up sockets, with a clock the test moves: what it counts
// as idle, and what it logs and how often. (connection-limit.test.ts runs it on real connections.)
import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { CONNECTION_LOG_INTERVAL_MS, limitConnections } from '@lib/server/connection-limit';

class FakeSocket extends EventEmitter {
  destroyed = false;
  /** As Node's parser holds the request being read: incomplete while its body arrives. */
  parser: { incoming: { complete: boolean } | null } = { incoming: null };
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.emit('close');
  }
}

function setUp(max: number) {
  const server = new EventEmitter();
  const clock = { ms: 0 };
  const limit = limitConnections(server as unknown as Server, max, () => clock.ms);
  const connect = () => {
    const socket = new FakeSocket();
    server.emit('connection', socket);
    return socket;
  };
  /** A request on `socket`; finish() ends its answer, keeping the connection or not. */
  const request = (socket: FakeSocket, { keepAlive = true } = {}) => {
    const res = Object.assign(new EventEmitter(), { shouldKeepAlive: keepAlive });
    limit.requestStarted({ socket } as unknown as IncomingMessage, res as unknown as ServerResponse);
    return { finish: () => res.emit('finish') };
  };
  /** A request on `socket` whose body is still arriving. */
  const arriving = (socket: FakeSocket) => {
    socket.parser.incoming = { complete: false };
    request(socket);
  };
  /** Sockets the server was asked to answer 408 (its clientError handler, ./guards.ts), in order. */
  const timedOut: FakeSocket[] = [];
  server.on('clientError', (error: NodeJS.ErrnoException, socket: FakeSocket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') timedOut.push(socket);
  });
  return { limit, clock, connect, request, arriving, timedOut };
}

let lines: { event: string; count: number; maxConnections: number }[];
beforeEach(() => {
  lines = [];
  jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    lines.push(JSON.parse(String(chunk)) as (typeof lines)[number]);
    return true;
  });
  jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
});
afterEach(() => jest.restoreAllMocks());

const said = () => lines.map(({ event, count, maxConnections }) => ({ event, count, maxConnections }));

describe('what the connection limit logs', () => {
  it(`closed idle connections: the first at once, then at most once per ${CONNECTION_LOG_INTERVAL_MS / 1000} s with the count since`, () => {
    const { clock, connect } = setUp(1);
    connect();
    connect();
    expect(said()).toEqual([{ event: 'server.idle_connections_closed', count: 1, maxConnections: 1 }]);
    clock.ms = CONNECTION_LOG_INTERVAL_MS - 1;
    connect();
    connect();
    expect(lines).toHaveLength(1);
    clock.ms = CONNECTION_LOG_INTERVAL_MS;
    connect();
    expect(said()).toEqual([
      { event: 'server.idle_connections_closed', count: 1, maxConnections: 1 },
      { event: 'server.idle_connections_closed', count: 3, maxConnections: 1 },
    ]);
  });

  it('refused connections on their own line, and no line for what did not happen', () => {
    const { connect, request } = setUp(1);
    request(connect());
    const newcomer = connect();
    expect(newcomer.destroyed).toBe(true);
    expect(said()).toEqual([{ event: 'server.connections_refused', count: 1, maxConnections: 1 }]);
  });
});

describe('arriving bodies at the limit', () => {
  it('times out a different one for each newcomer, and keeps the count at the limit', () => {
    const { limit, connect, arriving, timedOut } = setUp(2);
    const [first, second] = [connect(), connect()];
    arriving(first!);
    arriving(second!);
    // Two newcomers in one tick, before the first one timed out has closed.
    const one = connect();
    expect(limit.open()).toBe(2);
    arriving(one);
    connect();
    expect(timedOut).toEqual([first, second]);
    expect(limit.open()).toBe(2);
  });

  it(`logs them once per ${CONNECTION_LOG_INTERVAL_MS / 1000} s with the count since, and not again for what did not happen`, () => {
    const { clock, connect, arriving, request } = setUp(1);
    arriving(connect());
    const newcomer = connect();
    expect(said()).toEqual([{ event: 'server.arriving_requests_timed_out', count: 1, maxConnections: 1 }]);
    clock.ms = CONNECTION_LOG_INTERVAL_MS;
    // Only a refusal now (the newcomer's whole request is being answered): the line says that alone.
    request(newcomer);
    connect();
    expect(said().slice(1)).toEqual([{ event: 'server.connections_refused', count: 1, maxConnections: 1 }]);
  });
});

describe('what the connection limit counts', () => {
  it('a closed connection as gone', () => {
    const { limit, connect } = setUp(5);
    const socket = connect();
    connect();
    socket.destroy();
    expect([limit.open(), limit.idle()]).toEqual([1, 1]);
  });

  it('a connection idle again once its answer is sent, unless it closes or was closed meanwhile', () => {
    const { limit, connect, request } = setUp(2);
    const kept = connect();
    const closing = connect();
    const one = request(kept);
    const two = request(closing, { keepAlive: false });
    expect(limit.idle()).toBe(0);
    one.finish();
    two.finish();
    expect(limit.idle()).toBe(1);

    const busy = request(kept);
    kept.destroy();
    busy.finish();
    expect([limit.open(), limit.idle()]).toEqual([1, 0]);
  });

  it('a connection closed to admit another as gone, even when its answer finishes after', () => {
    const { limit, connect, request } = setUp(1);
    const first = connect();
    const answer = request(first);
    answer.finish();
    // first is idle now; a newcomer closes it. A late 'finish' must not bring it back.
    connect();
    expect(first.destroyed).toBe(true);
    request(first).finish();
    expect([limit.open(), limit.idle()]).toEqual([1, 1]);
  });
});
