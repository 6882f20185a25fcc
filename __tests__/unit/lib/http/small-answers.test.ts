// The small helpers every stage answers with: each promise their comments make, tested directly.
import type { ServerResponse } from 'node:http';
import { acceptsGzip } from '@lib/http/accept-encoding';
import { problemBody, sendProblem } from '@lib/http/problem';
import { sameOriginPath } from '@lib/http/same-origin-path';
import { addVary } from '@lib/http/vary';

function fakeResponse(prior?: { headersSent?: boolean; destroyed?: boolean }) {
  const res = {
    headersSent: prior?.headersSent ?? false,
    destroyed: prior?.destroyed ?? false,
    shouldKeepAlive: true,
    status: 0,
    headers: {} as Record<string, unknown>,
    /** What setHeader set, by name as given (Node keeps them until writeHead merges its own over them). */
    set: {} as Record<string, unknown>,
    body: undefined as unknown,
    ended: false,
    setHeader(name: string, value: unknown) {
      res.set[name] = value;
      return res;
    },
    hasHeader: (name: string) => Object.keys(res.set).some((set) => set.toLowerCase() === name.toLowerCase()),
    writeHead(status: number, headers: Record<string, unknown> = {}) {
      res.status = status;
      res.headers = { ...res.set, ...headers };
      return res;
    },
    end(body?: unknown) {
      res.body = body;
      res.ended = true;
      return res;
    },
    destroy: jest.fn(),
  };
  return res;
}

describe('acceptsGzip', () => {
  it.each([
    ['gzip, deflate, br', true],
    ['gzip;q=0.5, identity;q=0.4', true],
    ['*', true],
    ['identity, gzip;q=0.5', false],
    ['gzip;q=0', false],
    ['br', false],
    ['', false],
    [undefined, false],
  ])('reads %p as %p', (header, expected) => {
    expect(acceptsGzip(header)).toBe(expected);
  });
});

describe('sameOriginPath', () => {
  it.each(['/', '/a/b?c=d', '/%2F%2Fhost'])('echoes the plain path %p', (path) => {
    expect(sameOriginPath(path)).toBe(path);
  });

  it.each([
    undefined,
    null,
    '',
    'a/b',
    'https://evil.example/',
    '//evil.example/',
    '/\\evil.example/',
    '/a\nb',
    '/a\u0000b',
    '/a\u007fb',
  ])('echoes nothing for %p', (path) => {
    expect(sameOriginPath(path)).toBeUndefined();
  });
});

describe('addVary', () => {
  const response = (prior?: string | string[]) => {
    let vary: unknown = prior;
    return {
      getHeader: () => vary,
      setHeader: (_name: string, value: unknown) => {
        vary = value;
      },
      vary: () => vary,
    } as unknown as Pick<ServerResponse, 'getHeader' | 'setHeader'> & { vary: () => unknown };
  };

  it('adds the field to an answer with no Vary', () => {
    const res = response();
    addVary(res, 'Accept-Language');
    expect(res.vary()).toBe('Accept-Language');
  });

  it('keeps what is there, from a string or a list, dropping empty entries', () => {
    const res = response(['Accept-Encoding', ' , Cookie']);
    addVary(res, 'Accept-Language');
    expect(res.vary()).toBe('Accept-Encoding, Cookie, Accept-Language');
    const list = response(['Accept-Encoding', 'Cookie']);
    addVary(list, 'Accept-Language');
    expect(list.vary()).toBe('Accept-Encoding, Cookie, Accept-Language');
  });

  it('never lists a field twice, whatever its case, and adds nothing to *', () => {
    const twice = response('accept-language');
    addVary(twice, 'Accept-Language');
    expect(twice.vary()).toBe('accept-language');
    const star = response('*');
    addVary(star, 'Accept-Language');
    expect(star.vary()).toBe('*');
  });
});

describe('sendProblem, on a response in any state', () => {
  it('writes nothing into a response already answered or destroyed', () => {
    for (const prior of [{ headersSent: true }, { destroyed: true }]) {
      const res = fakeResponse(prior);
      sendProblem(res as unknown as ServerResponse, 400, 'x');
      expect(res.status).toBe(0);
      expect(res.ended).toBe(false);
    }
  });

  it('destroys the response instead of throwing when writing fails', () => {
    const res = fakeResponse();
    res.writeHead = () => {
      throw new Error('socket gone');
    };
    expect(() => sendProblem(res as unknown as ServerResponse, 400, 'x')).not.toThrow();
    expect(res.destroy).toHaveBeenCalledTimes(1);
  });

  it('sends the body to every method but HEAD', () => {
    for (const method of [undefined, 'GET', 'POST']) {
      const res = fakeResponse();
      sendProblem(res as unknown as ServerResponse, 413, 'Too large.', { method });
      expect(res.body).toBe(problemBody(413, 'Too large.'));
    }
    // Not left to Node: the same answer may be written to a response that is not Node's own.
    const head = fakeResponse();
    sendProblem(head as unknown as ServerResponse, 413, 'Too large.', { method: 'HEAD' });
    expect(head.body).toBeUndefined();
    expect(head.headers['Content-Length']).toBe(String(Buffer.byteLength(problemBody(413, 'Too large.'))));
  });

  it('titles a status Node has no name for "Error"', () => {
    expect(JSON.parse(problemBody(599, 'x'))).toMatchObject({ title: 'Error', status: 599 });
  });
});
