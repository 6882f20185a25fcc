import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { keepErrorAnswersPrivate } from '@lib/http/private-errors';
import { isNextNotFound, restyleNotFound } from '@lib/server/restyle-not-found';
import { ShellResponse } from '@lib/server/shell-response';

// Next's own compression middleware, as its router installs it inside its handler.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compression = require('next/dist/compiled/compression') as () => (
  req: IncomingMessage,
  res: ServerResponse,
  next: () => void,
) => void;

const META = Symbol.for('NextInternalRequestMeta');

/** What Next's router and sendRenderResult do for a request: `invokePath`, a status, a body. */
interface NextAnswer {
  invokePath?: string;
  status: number;
  body: string;
  compress: boolean;
  /** How the body is written: in one end(), or write() then end(). */
  writes: 'end' | 'write-end' | 'end-callback';
}

/** The requests whose end() callback Node (or the restyle, for a dropped end) called back. */
let calledBack: string[] = [];
/** Errors the answers emitted. */
let answerErrors: string[] = [];
/** What each of Next's write() calls returned. */
let wroteOn: boolean[] = [];

let nextAnswer: NextAnswer;

/** The shell's answer: as the pipeline's, given the request, its answer and the path it was given. */
function answerOurs(req: IncomingMessage, own: ServerResponse, path: string): void {
  restyled.push(`${req.url as string} ${path}`);
  own.removeHeader('Content-Encoding');
  own.writeHead(404, { 'Content-Type': 'text/plain', 'Content-Language': 'fr' });
  own.end('ours');
}
let restyled: string[];
let server: http.Server;
let base: string;

beforeAll(async () => {
  // The server's own answers, as the pipeline makes them.
  server = http.createServer({ ServerResponse: ShellResponse }, (req, res) => {
    // As the pipeline does, before this stage.
    keepErrorAnswersPrivate(res);
    // The path as the pipeline read it, before Next: not what the request says by the time it answers.
    restyleNotFound(res, answerOurs, `(read) ${req.url as string}`);
    // Whatever Next writes after the shell's answer is dropped, never an error on the answer (a
    // write after end, as Node's own end would raise it once the restyle stopped stepping in).
    res.on('error', (error) => answerErrors.push(error.message));
    const { invokePath, status, body, compress, writes } = nextAnswer;
    if (compress) compression()(req, res, () => undefined);
    if (invokePath) (req as IncomingMessage & { [META]?: object })[META] = { invokePath };
    res.statusCode = status;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('ETag', '"next"');
    // A product page that says anyone may cache it, before it fails.
    res.setHeader('Cache-Control', 'public, s-maxage=600');
    if (writes === 'end') {
      res.end(body);
    } else if (writes === 'end-callback') {
      res.end(body, () => calledBack.push(req.url as string));
    } else {
      // What Next's write is told: a write dropped says "go on", or Next would wait for a drain
      // that never comes.
      wroteOn.push(res.write(body.slice(0, 3)));
      res.end(body.slice(3));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  restyled = [];
  calledBack = [];
  wroteOn = [];
  answerErrors = [];
});

function get(pathname: string, method = 'GET') {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
    (resolve, reject) => {
      http
        .request(`${base}${pathname}`, { method, headers: { 'accept-encoding': 'gzip' } }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            const raw = Buffer.concat(chunks);
            const body = res.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw;
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body: body.toString() });
          });
        })
        .on('error', reject)
        .end();
    },
  );
}

const PAGE = '<html>Next’s 404 page, long enough to be worth compressing '.padEnd(2000, '.');

describe("restyleNotFound: Next's 404 answered in the shell's words", () => {
  it.each([
    ['compressed, in one end()', true, 'end'],
    ['compressed, written then ended', true, 'write-end'],
    ['uncompressed, in one end()', false, 'end'],
    ['uncompressed, written then ended', false, 'write-end'],
  ] as const)(
    'replaces the body of the 404 Next routed to its 404 page: %s',
    async (_how, compress, writes) => {
      nextAnswer = { invokePath: '/404', status: 404, body: PAGE, compress, writes };
      const answer = await get('/missing');
      expect([answer.status, answer.body, answer.headers['content-language']]).toEqual([404, 'ours', 'fr']);
      expect(answer.headers['content-encoding']).toBeUndefined();
      // Through the head the pipeline installed before this stage.
      expect(answer.headers['cache-control']).toBe('private, no-store');
      expect(restyled).toEqual(['/missing (read) /missing']);
      expect(wroteOn).toEqual(writes === 'write-end' ? [true] : []);
      await new Promise((resolve) => setImmediate(resolve));
      expect(answerErrors).toEqual([]);
    },
  );

  it("calls back Next's end() it dropped, as Node would have once the answer was written", async () => {
    nextAnswer = { invokePath: '/404', status: 404, body: PAGE, compress: false, writes: 'end-callback' };
    expect((await get('/missing')).body).toBe('ours');
    expect(calledBack).toEqual(['/missing']);
  });

  it('watches each answer on its own: on one kept-alive connection, a 404 restyled, then a page as Next wrote it', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const ask = (pathname: string) =>
        new Promise<{ body: string; reused: boolean }>((resolve, reject) => {
          const request = http.get(`${base}${pathname}`, { agent }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ body, reused: request.reusedSocket }));
          });
          request.on('error', reject);
        });
      nextAnswer = { invokePath: '/404', status: 404, body: PAGE, compress: false, writes: 'end' };
      expect((await ask('/missing')).body).toBe('ours');
      nextAnswer = { invokePath: '/about', status: 200, body: PAGE, compress: false, writes: 'write-end' };
      expect(await ask('/about')).toEqual({ body: PAGE, reused: true });
      expect(restyled).toEqual(['/missing (read) /missing']);
    } finally {
      agent.destroy();
    }
  });

  it('answers HEAD too, with no body', async () => {
    nextAnswer = { invokePath: '/404', status: 404, body: PAGE, compress: true, writes: 'end' };
    const answer = await get('/missing', 'HEAD');
    expect([answer.status, answer.body, answer.headers['content-language']]).toEqual([404, '', 'fr']);
  });

  it.each([
    ['a page of the product', { invokePath: '/about', status: 200 }],
    ["a product page's own 404", { invokePath: '/orders/[id]', status: 404 }],
    ['an answer before Next routed (its plain-text 404 for a missing image)', { status: 404 }],
    ['another status on the 404 page (a 500 from rendering it)', { invokePath: '/404', status: 500 }],
  ] as [string, { invokePath?: string; status: number }][])(
    'leaves %s as Next wrote it',
    async (_what, { invokePath, status }) => {
      nextAnswer = {
        ...(invokePath ? { invokePath } : {}),
        status,
        body: PAGE,
        compress: true,
        writes: 'end',
      };
      const answer = await get('/page');
      expect(answer.status).toBe(status);
      expect(answer.body).toBe(PAGE);
      expect(restyled).toEqual([]);
      // Next's own answer goes through the head the pipeline installed too: an error is private.
      expect(answer.headers['cache-control']).toBe(
        status >= 400 ? 'private, no-store' : 'public, s-maxage=600',
      );
    },
  );
});

describe('isNextNotFound', () => {
  const request = (meta?: object) =>
    Object.assign(new http.IncomingMessage(null as never), meta ? { [META]: meta } : {});

  it("is Next's router choosing its 404 page, and nothing else", () => {
    expect(isNextNotFound(request({ invokePath: '/404' }), 404)).toBe(true);
    expect(isNextNotFound(request({ invokePath: '/404' }), 200)).toBe(false);
    expect(isNextNotFound(request({ invokePath: '/about' }), 404)).toBe(false);
    expect(isNextNotFound(request(), 404)).toBe(false);
  });
});
