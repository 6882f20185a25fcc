// The server's answers carry their watches as flags: a request pays fields, not methods of its own.
import http, { type IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keepErrorAnswersPrivate } from '@lib/http/private-errors';
import { applyProductHeaders, handedToNext } from '@lib/http/product-headers';
import { restyleNotFound } from '@lib/server/restyle-not-found';
import { ShellResponse } from '@lib/server/shell-response';
import { rawRequest } from '../../../support/http';

const META = Symbol.for('NextInternalRequestMeta');
let server: http.Server;
let base: string;
let own: string[][] = [];

beforeAll(async () => {
  server = http.createServer({ ServerResponse: ShellResponse }, (req, res) => {
    // Every watch the pipeline sets on an answer it hands to Next.
    keepErrorAnswersPrivate(res);
    applyProductHeaders(() => ({ 'X-Team': 'storefront' }), res, req.url as string);
    handedToNext(res);
    // Next's router choosing its 404 page, for an answer watched for it or not.
    if (req.url?.endsWith('404'))
      (req as IncomingMessage & { [META]?: object })[META] = { invokePath: '/404' };
    if (req.url !== '/unwatched-404') restyleNotFound(res, () => undefined, req.url as string);
    res.statusCode = req.url === '/fails' ? 500 : req.url?.endsWith('404') ? 404 : 200;
    res.setHeader('Cache-Control', 'public, max-age=60');
    res.write('as ');
    res.end('written');
    own.push(['writeHead', 'write', 'end'].filter((name) => Object.hasOwn(res, name)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  own = [];
});

describe("the server's answers", () => {
  it('are written as Node writes them, with every watch set and none of them firing', async () => {
    const got = await rawRequest(base, '/page');
    expect([got.status, got.body, got.headers['cache-control']]).toEqual([
      200,
      'as written',
      'public, max-age=60',
    ]);
    // Next's answer: the product's headers are Next's to set.
    expect(got.headers['x-team']).toBeUndefined();
  });

  it('keep an error private through the watch set as a flag', async () => {
    const got = await rawRequest(base, '/fails');
    expect([got.status, got.headers['cache-control']]).toEqual([500, 'private, no-store']);
  });

  it("leave Next's 404 as Next wrote it where no restyle was asked for", async () => {
    const got = await rawRequest(base, '/unwatched-404');
    expect([got.status, got.body, got.headers['cache-control']]).toEqual([
      404,
      'as written',
      'private, no-store',
    ]);
  });

  it('have no writeHead, write or end of their own: the watches cost no methods made for each request', async () => {
    await rawRequest(base, '/page');
    await rawRequest(base, '/fails');
    expect(own).toEqual([[], []]);
  });

  it.each([
    [404, 'private, no-store'],
    [500, 'private, no-store'],
    [200, 'public, max-age=3600'],
  ])(
    "the shell writes itself take the product's Cache-Control, and an error still goes out private (%p)",
    (status, expected) => {
      // A product rule that would let a shared cache keep anything it covers; an answer the shell
      // writes (not handed to Next): the product's headers first, then the error's own.
      const res = new ShellResponse(new http.IncomingMessage(null as never));
      keepErrorAnswersPrivate(res);
      applyProductHeaders(
        () => ({ 'Cache-Control': 'public, max-age=3600', 'X-Team': 'storefront' }),
        res,
        '/x',
      );
      res.writeHead(status);
      expect([res.getHeader('cache-control'), res.getHeader('x-team')]).toEqual([expected, 'storefront']);
    },
  );

  it("are Node's ServerResponse, whose methods the class's own step around to", () => {
    const res = new ShellResponse(new http.IncomingMessage(null as never));
    expect(res).toBeInstanceOf(ServerResponse);
    for (const name of ['writeHead', 'write', 'end'] as const) {
      expect(ShellResponse.prototype[name]).not.toBe(ServerResponse.prototype[name]);
      expect(Object.getOwnPropertyDescriptor(ShellResponse.prototype, name)).toMatchObject({
        writable: true,
        enumerable: false,
        configurable: true,
      });
    }
  });
});
