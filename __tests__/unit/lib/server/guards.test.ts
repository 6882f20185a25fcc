/** @jest-environment node */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ALLOW, answeredBeforeNext, clientErrorAnswer } from '../../../../lib/server/guards';

function fakeRequest(parts: Partial<IncomingMessage>): IncomingMessage {
  return {
    httpVersion: '1.1',
    headers: { host: 'example.test' },
    method: 'GET',
    ...parts,
  } as IncomingMessage;
}

function fakeResponse() {
  const res = {
    status: 0,
    headers: {} as Record<string, string>,
    body: '',
    headersSent: false,
    destroyed: false,
    writeHead(status: number, headers: Record<string, string>) {
      res.status = status;
      res.headers = headers;
      res.headersSent = true;
    },
    end(body = '') {
      res.body = body;
    },
    destroy() {},
  };
  return res;
}

describe('answeredBeforeNext', () => {
  it('passes a path on to Next untouched', () => {
    const req = fakeRequest({ url: '/a?b=c' });
    const res = fakeResponse();
    expect(answeredBeforeNext(req, res as unknown as ServerResponse)).toBe(false);
    expect(req.url).toBe('/a?b=c');
    expect(res.status).toBe(0);
  });

  it('rewrites an absolute-form target to its path, dropping the host', () => {
    const req = fakeRequest({ url: 'http://evil.example/x?y' });
    expect(answeredBeforeNext(req, fakeResponse() as unknown as ServerResponse)).toBe(false);
    expect(req.url).toBe('/x?y');
  });

  it('answers HTTP/1.1 without Host with 400', () => {
    const res = fakeResponse();
    const req = fakeRequest({ url: '/', headers: {} });
    expect(answeredBeforeNext(req, res as unknown as ServerResponse)).toBe(true);
    expect(res.status).toBe(400);
    expect(res.body).toContain('Host header');
    expect(res.headers['Content-Security-Policy']).toBeDefined();
  });

  it('lets HTTP/1.0 go without Host, as that version allows', () => {
    const req = fakeRequest({ url: '/', headers: {}, httpVersion: '1.0' });
    expect(answeredBeforeNext(req, fakeResponse() as unknown as ServerResponse)).toBe(false);
  });

  it('answers OPTIONS * with 204 and Allow', () => {
    const res = fakeResponse();
    expect(
      answeredBeforeNext(fakeRequest({ url: '*', method: 'OPTIONS' }), res as unknown as ServerResponse),
    ).toBe(true);
    expect(res.status).toBe(204);
    expect(res.headers.Allow).toBe(ALLOW);
    expect(res.headers['X-Frame-Options']).toBe('DENY');
  });

  it.each([
    ['GET', '*'],
    ['GET', 'example.com:443'],
  ])('answers %s %s with 400', (method, url) => {
    const res = fakeResponse();
    expect(answeredBeforeNext(fakeRequest({ url, method }), res as unknown as ServerResponse)).toBe(true);
    expect(res.status).toBe(400);
    expect(res.body).toBe('Bad request: the request target must be a path.');
  });
});

describe('clientErrorAnswer', () => {
  it.each([
    ['HPE_HEADER_OVERFLOW', 431],
    ['HPE_URI_TOO_LONG', 414],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408],
    ['HPE_HEADERS_TIMEOUT', 408],
    ['HPE_INVALID_METHOD', 400],
    ['', 400],
  ])('answers %p with %i', (code, status) => {
    expect(clientErrorAnswer(code)?.status).toBe(status);
  });

  it.each(['ECONNRESET', 'EPIPE'])('writes nothing when the client is gone (%s)', (code) => {
    expect(clientErrorAnswer(code)).toBeNull();
  });
});
