import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { limitConnections } from '@lib/server/connection-limit';
import { guardConnections } from '@lib/server/guards';
import { until } from '../../../support/until';

const LIMIT = 3;
let server: Server;
let port: number;
let limit: ReturnType<typeof limitConnections>;
/** Responses held open by requests to /hold, answered by the test. */
let held: ServerResponse[];

beforeEach(async () => {
  held = [];
  jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
    limit.requestStarted(req, res);
    if (req.url === '/hold') held.push(res);
    else res.end('ok');
  });
  limit = limitConnections(server, LIMIT);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(async () => {
  for (const res of held) res.end();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  jest.restoreAllMocks();
});

interface Client {
  socket: Socket;
  text: () => string;
  closed: () => boolean;
}

function client(): Promise<Client> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => (closed = true));
    socket.once('connect', () => resolve({ socket, text: () => text, closed: () => closed }));
  });
}

const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;

describe('limitConnections', () => {
  it('closes the connection idle the longest to admit a new one', async () => {
    const idle: Client[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      const c = await client();
      c.socket.write(request('/'));
      await until(() => c.text().endsWith('ok'));
      idle.push(c);
    }
    expect(limit.open()).toBe(LIMIT);
    expect(limit.idle()).toBe(LIMIT);
    // The first to go idle is the first to go; the newcomer is answered.
    const newcomer = await client();
    newcomer.socket.write(request('/'));
    await until(() => newcomer.text().endsWith('ok'));
    await until(() => idle[0]!.closed());
    expect(idle.map((c) => c.closed())).toEqual([true, false, false]);
    expect(limit.open()).toBe(LIMIT);
    // A connection that was used again is no longer the oldest idle one.
    idle[1]!.socket.write(request('/'));
    await until(() => idle[1]!.text().split('ok').length === 3);
    const another = await client();
    another.socket.write(request('/'));
    await until(() => another.text().endsWith('ok'));
    await until(() => idle[2]!.closed());
    expect(idle[1]!.closed()).toBe(false);
    for (const c of [...idle, newcomer, another]) c.socket.destroy();
  });

  it('counts a connection that has sent nothing as idle since it opened', async () => {
    const silent = await client();
    const used = await client();
    used.socket.write(request('/'));
    await until(() => used.text().endsWith('ok'));
    const busy = await client();
    busy.socket.write(request('/hold'));
    await until(() => held.length === 1);
    // silent has been idle since before used finished: it goes first; busy is never a candidate.
    const newcomer = await client();
    newcomer.socket.write(request('/'));
    await until(() => newcomer.text().endsWith('ok'));
    await until(() => silent.closed());
    expect([used.closed(), busy.closed()]).toEqual([false, false]);
    for (const c of [used, silent, busy, newcomer]) c.socket.destroy();
  });

  it('refuses a newcomer only when every connection has a request in flight, and says so once', async () => {
    const busy: Client[] = [];
    for (let i = 0; i < LIMIT; i += 1) {
      const c = await client();
      c.socket.write(request('/hold'));
      busy.push(c);
    }
    await until(() => held.length === LIMIT);
    const refused = [await client(), await client()];
    await until(() => refused.every((c) => c.closed()));
    expect(refused.map((c) => c.text())).toEqual(['', '']);
    expect(busy.map((c) => c.closed())).toEqual([false, false, false]);
    const lines = (process.stderr.write as jest.Mock).mock.calls.map((call) => String(call[0]));
    expect(lines.filter((line) => line.includes('"event":"server.connections_refused"'))).toHaveLength(1);
    // Once one is answered, its connection is idle, and the next newcomer gets in.
    held.shift()!.end('done');
    await until(() => busy[0]!.text().endsWith('done'));
    const next = await client();
    next.socket.write(request('/'));
    await until(() => next.text().endsWith('ok'));
    for (const c of [...busy, next]) c.socket.destroy();
  });

  /** A connection that sent a POST's head and part of its body, its route waiting for the rest. */
  async function arriving(): Promise<Client> {
    const c = await client();
    c.socket.write('POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc');
    return c;
  }

  it('times out the connection open the longest whose body is still arriving, when none is idle', async () => {
    guardConnections(server);
    const answering = await client();
    answering.socket.write(request('/hold'));
    await until(() => held.length === 1);
    const first = await arriving();
    await until(() => held.length === 2);
    const second = await arriving();
    await until(() => held.length === LIMIT);
    const newcomer = await client();
    newcomer.socket.write(request('/'));
    await until(() => newcomer.text().endsWith('ok'));
    await until(() => first.closed());
    expect(first.text()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    // The whole request being answered stays, and so does the body that came later.
    expect([answering.closed(), second.closed()]).toEqual([false, false]);
    const lines = (process.stderr.write as jest.Mock).mock.calls.map((call) => String(call[0]));
    expect(
      lines.filter((line) => line.includes('"event":"server.arriving_requests_timed_out"')),
    ).toHaveLength(1);
    expect(lines.filter((line) => line.includes('"event":"server.connections_refused"'))).toHaveLength(0);
    for (const c of [answering, second, newcomer]) c.socket.destroy();
  });

  it('times out, when asked, every request whose body is still arriving, and only those', async () => {
    guardConnections(server);
    const answering = await client();
    answering.socket.write(request('/hold'));
    const bodies = [await arriving(), await arriving()];
    await until(() => held.length === LIMIT);
    expect(limit.timeOutReceiving()).toBe(2);
    await until(() => bodies.every((c) => c.closed()));
    expect(bodies.map((c) => c.text().split('\r\n')[0])).toEqual([
      'HTTP/1.1 408 Request Timeout',
      'HTTP/1.1 408 Request Timeout',
    ]);
    expect(answering.closed()).toBe(false);
    expect(limit.timeOutReceiving()).toBe(0);
    answering.socket.destroy();
  });

  it('closes an arriving request it times out even on a server with no clientError handler', async () => {
    const body = await arriving();
    await until(() => held.length === 1);
    expect(limit.timeOutReceiving()).toBe(1);
    await until(() => body.closed());
  });
});
