import { EventEmitter, once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rememberResponse, whenAnswered } from '@lib/reporting/node/answered-status';

let server: Server;
let answer: (res: import('node:http').ServerResponse) => void;
let seen: Promise<number>;
let see: (status: number) => void;
/** What whenAnswered returned for each request, read by the tests (an expect in the handler would fail nothing). */
let remembered: boolean[];

beforeAll(async () => {
  server = createServer((req, res) => {
    rememberResponse(req, res);
    void (async () => {
      // As Next does: the error is reported before the answer is written, after an await, with
      // the request's headers object.
      await Promise.resolve();
      remembered.push(whenAnswered(req.headers, see));
      answer(res);
    })();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  seen = new Promise((resolve) => (see = resolve));
  remembered = [];
});

function get(): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ port: (server.address() as AddressInfo).port, host: '127.0.0.1' }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

describe('whenAnswered', () => {
  it.each([400, 413, 500, 503])(
    'hands over the status the response was answered with (%i)',
    async (status) => {
      answer = (res) => res.writeHead(status).end();
      expect(await get()).toBe(status);
      expect(remembered).toEqual([true]);
      expect(await seen).toBe(status);
    },
  );

  it('counts a response that never sent its headers as 500', async () => {
    answer = (res) => res.destroy();
    await get();
    expect(remembered).toEqual([true]);
    expect(await seen).toBe(500);
  });

  it('returns false for headers of a request the server did not see, so the caller decides', () => {
    const called = jest.fn();
    expect(whenAnswered({ host: 'example.test' }, called)).toBe(false);
    expect(whenAnswered(undefined, called)).toBe(false);
    expect(called).not.toHaveBeenCalled();
  });

  it('hands over the status at once for a response already finished or destroyed', () => {
    const finished = Object.assign(new EventEmitter(), {
      writableFinished: true,
      destroyed: false,
      headersSent: true,
      statusCode: 404,
    });
    const destroyed = Object.assign(new EventEmitter(), {
      writableFinished: false,
      destroyed: true,
      headersSent: false,
      statusCode: 200,
    });
    const statuses: number[] = [];
    for (const res of [finished, destroyed]) {
      const headers = {};
      rememberResponse({ headers } as never, res as never);
      expect(whenAnswered(headers, (status) => statuses.push(status))).toBe(true);
    }
    expect(statuses).toEqual([404, 500]);
  });

  it('keeps the response out of a copy of the headers, and answers false for headers that are not an object', () => {
    const headers = { host: 'x' };
    rememberResponse({ headers } as never, new EventEmitter() as never);
    expect(Object.keys({ ...headers })).toEqual(['host']);
    expect(JSON.stringify(headers)).toBe('{"host":"x"}');
    const called = jest.fn();
    expect(whenAnswered('host: x', called)).toBe(false);
    expect(whenAnswered(null, called)).toBe(false);
  });

  it('never throws, whatever the headers are', () => {
    const hostile = new Proxy(
      {},
      {
        get: () => {
          throw new Error('trap');
        },
      },
    );
    expect(whenAnswered(hostile, jest.fn())).toBe(false);
    expect(() =>
      rememberResponse({ headers: Object.freeze({}) } as never, new EventEmitter() as never),
    ).not.toThrow();
  });
});

describe('a request remembered twice (Next rendering the error screen after its handler failed)', () => {
  it('is answered by the response remembered last', () => {
    const headers = {};
    const done = (statusCode: number) =>
      Object.assign(new EventEmitter(), { writableFinished: true, headersSent: true, statusCode });
    rememberResponse({ headers } as never, done(200) as never);
    rememberResponse({ headers } as never, done(503) as never);
    const statuses: number[] = [];
    expect(whenAnswered(headers, (status) => statuses.push(status))).toBe(true);
    expect(statuses).toEqual([503]);
  });
});
