// Every error answer private, however its head was written: Next's way (setHeader, then an implicit
// head), writeHead with an object, with a flat list, with a status message.
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepErrorAnswersPrivate } from '@lib/http/private-errors';
import { ShellResponse } from '@lib/server/shell-response';
import { rawRequest } from '../../../support/http';

let server: http.Server;
let base: string;
let answer: (req: IncomingMessage, res: ServerResponse) => void;

beforeAll(async () => {
  // The server's own answers, as the pipeline makes them.
  server = http.createServer({ ServerResponse: ShellResponse }, (req, res) => {
    keepErrorAnswersPrivate(res);
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const PUBLIC = 'public, s-maxage=600';

describe('an error answer', () => {
  it('set public by a page that then failed (setHeader, then an implicit head) goes out private, no-store', async () => {
    answer = (_req, res) => {
      res.setHeader('Cache-Control', PUBLIC);
      res.statusCode = 500;
      res.end('screen with reference abc');
    };
    const got = await rawRequest(base, '/');
    expect([got.status, got.headers['cache-control']]).toEqual([500, 'private, no-store']);
  });

  it.each<[string, (res: ServerResponse) => ServerResponse]>([
    ['an object', (res) => res.writeHead(404, { 'cache-control': PUBLIC, 'X-Kept': '1' })],
    [
      'an object and a status message',
      (res) => res.writeHead(503, 'Busy', { 'Cache-Control': PUBLIC, 'X-Kept': '1' }),
    ],
    ['a flat list', (res) => res.writeHead(429, ['CACHE-CONTROL', PUBLIC, 'X-Kept', '1'])],
  ])('written with %s goes out private, no-store, its other headers kept', async (_shape, write) => {
    answer = (_req, res) => write(res).end();
    const got = await rawRequest(base, '/');
    expect(got.headers['cache-control']).toBe('private, no-store');
    expect(got.headers['x-kept']).toBe('1');
  });

  it.each([400, 500, 599])('of status %p without any Cache-Control gets one', async (status) => {
    answer = (_req, res) => res.writeHead(status).end();
    expect((await rawRequest(base, '/')).headers['cache-control']).toBe('private, no-store');
  });

  it('with setHeader and an object both naming it still goes out private, no-store', async () => {
    answer = (_req, res) => {
      res.setHeader('Cache-Control', PUBLIC);
      res.writeHead(500, { 'Cache-Control': 'public, max-age=60' }).end();
    };
    expect((await rawRequest(base, '/')).headers['cache-control']).toBe('private, no-store');
  });
});

describe('an answer that is no error', () => {
  it.each([200, 204, 301, 304, 399])('of status %p keeps the Cache-Control it was given', async (status) => {
    answer = (_req, res) => res.writeHead(status, { 'Cache-Control': PUBLIC, Location: '/' }).end();
    expect((await rawRequest(base, '/')).headers['cache-control']).toBe(PUBLIC);
  });

  it('keeps none when it was given none', async () => {
    answer = (_req, res) => res.end('ok');
    expect((await rawRequest(base, '/')).headers['cache-control']).toBeUndefined();
  });
});
