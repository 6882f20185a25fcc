import { IncomingMessage, ServerResponse } from 'node:http';
import { Duplex, PassThrough } from 'node:stream';
import { createServer, connect, type AddressInfo, Socket } from 'node:net';
import { once } from 'node:events';
import {
  plainResponseBytes,
  sendPlain,
  SOCKET_LINGER_MS,
  writePlainToSocket,
} from '@lib/http/plain-response';
import { securityHeaders } from '@lib/http/security-headers';

describe('plainResponseBytes', () => {
  it('is a whole HTTP/1.1 response that closes, with the security headers and an exact length', () => {
    const bytes = plainResponseBytes(431, 'Too big: é', { Allow: 'GET' });
    const [head, body] = bytes.split('\r\n\r\n');
    const [statusLine, ...lines] = head!.split('\r\n');
    expect(statusLine).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    const headers = Object.fromEntries(lines.map((line) => line.split(': ') as [string, string]));
    expect(headers).toEqual({
      ...securityHeaders(),
      // Every error answer is private (lib/http/private-errors.ts), this one written past any response.
      'Cache-Control': 'private, no-store',
      'Content-Type': 'text/plain; charset=utf-8',
      'Content-Length': String(Buffer.byteLength('Too big: é')),
      Allow: 'GET',
      Connection: 'close',
    });
    expect(body).toBe('Too big: é');
  });

  it.each([
    [399, 'no-store'],
    [400, 'private, no-store'],
    [505, 'private, no-store'],
  ])('says a %i is kept by no cache with Cache-Control: %s', (status, cacheControl) => {
    const head = plainResponseBytes(status, 'x').split('\r\n\r\n')[0]!;
    expect(head.split('\r\n').filter((line) => /^cache-control:/i.test(line))).toEqual([
      `Cache-Control: ${cacheControl}`,
    ]);
  });
});

describe('sendPlain', () => {
  it('does not write into a response whose headers are already sent', () => {
    const writeHead = jest.fn();
    sendPlain({ headersSent: true, destroyed: false, writeHead } as unknown as ServerResponse, 400, 'x');
    expect(writeHead).not.toHaveBeenCalled();
  });

  it('destroys the response instead of throwing when writing fails', () => {
    const destroy = jest.fn();
    const res = {
      headersSent: false,
      destroyed: false,
      writeHead: () => {
        throw new Error('socket gone');
      },
      destroy,
    };
    expect(() => sendPlain(res as unknown as ServerResponse, 400, 'x')).not.toThrow();
    expect(destroy).toHaveBeenCalled();
  });
});

describe('writePlainToSocket', () => {
  it('writes the response and ends the socket', async () => {
    const socket = new PassThrough();
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    writePlainToSocket(socket, 400, 'Bad request.');
    await new Promise((resolve) => socket.on('end', resolve));
    expect(Buffer.concat(chunks).toString()).toBe(plainResponseBytes(400, 'Bad request.'));
  });

  it('closes the connection whole once the answer is out, though the client keeps its side open', async () => {
    // Half-open, as Node's HTTP server keeps connections: ending its side alone would leave it open.
    const server = createServer({ allowHalfOpen: true });
    const closedByServer = new Promise<boolean>((resolve) => {
      server.on('connection', (socket) => {
        socket.on('close', () => resolve(true));
        writePlainToSocket(socket, 400, 'Bad request.');
      });
      setTimeout(() => resolve(false), SOCKET_LINGER_MS * 4).unref();
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    // A client that never ends its side.
    const client = connect({
      port: (server.address() as AddressInfo).port,
      host: '127.0.0.1',
      allowHalfOpen: true,
    });
    client.on('error', () => {});
    let text = '';
    client.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    const ended = once(client, 'end');
    expect(await closedByServer).toBe(true);
    await ended;
    expect(text).toBe(plainResponseBytes(400, 'Bad request.'));
    client.destroy();
    server.close();
    await once(server, 'close');
  });

  it(`cuts a connection whose answer cannot leave within ${SOCKET_LINGER_MS} ms (a client that reads nothing)`, async () => {
    // A socket whose writes never complete: the answer never finishes leaving.
    const socket = new Duplex({ write() {}, read() {} });
    writePlainToSocket(socket, 400, 'Bad request.');
    await new Promise((resolve) => setTimeout(resolve, SOCKET_LINGER_MS / 2));
    expect(socket.destroyed).toBe(false);
    await new Promise((resolve) => setTimeout(resolve, SOCKET_LINGER_MS));
    expect(socket.destroyed).toBe(true);
  });

  it('only destroys a socket that can no longer be written', () => {
    const socket = new PassThrough();
    socket.end();
    const write = jest.spyOn(socket, 'write');
    writePlainToSocket(socket, 400, 'x');
    expect(write).not.toHaveBeenCalled();
    expect(socket.destroyed).toBe(true);
  });
});

describe('plain answers never throw', () => {
  it('writes a status Node has no name for with an empty reason', () => {
    expect(plainResponseBytes(599, 'x').split('\r\n')[0]).toBe('HTTP/1.1 599 ');
  });

  it('destroys a socket whose write fails instead of throwing', () => {
    const socket = new PassThrough();
    jest.spyOn(socket, 'end').mockImplementation(() => {
      throw new Error('socket gone');
    });
    expect(() => writePlainToSocket(socket, 400, 'x')).not.toThrow();
    expect(socket.destroyed).toBe(true);
  });

  it('writes nothing into a destroyed response', () => {
    const writeHead = jest.fn();
    sendPlain({ headersSent: false, destroyed: true, writeHead } as unknown as ServerResponse, 400, 'x');
    expect(writeHead).not.toHaveBeenCalled();
  });
});

describe('sendPlain on a response the pipeline set headers on', () => {
  const response = () => new ServerResponse(new IncomingMessage(new Socket()));

  it('sets the security headers a response has none of, and replaces none it has', () => {
    const bare = response();
    sendPlain(bare, 405, 'Use POST.');
    for (const [name, value] of Object.entries(securityHeaders())) expect(bare.getHeader(name)).toBe(value);
    const chosen = response();
    // The API's set, or a product's own value: either stays.
    chosen.setHeader('Content-Security-Policy', "default-src 'none'");
    chosen.setHeader('X-Frame-Options', 'SAMEORIGIN');
    sendPlain(chosen, 405, 'Use POST.', { Allow: 'POST' });
    expect(chosen.getHeader('content-security-policy')).toBe("default-src 'none'");
    expect(chosen.getHeader('x-frame-options')).toBe('SAMEORIGIN');
    expect(chosen.getHeader('allow')).toBe('POST');
    expect(chosen.getHeader('content-type')).toBe('text/plain; charset=utf-8');
  });
});
