import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import { type AddressInfo, Socket } from 'node:net';
import { PROBLEM_CONTENT_TYPE, sendProblem } from '@lib/http/problem';
import { applyProductHeaders } from '@lib/http/product-headers';
import { securityHeaders } from '@lib/http/security-headers';
import { ShellResponse } from '@lib/server/shell-response';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) =>
    sendProblem(res, 404, 'No API route answers this path.', { method: req.method }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('sendProblem', () => {
  it('answers RFC 9457 problem details, with the security headers, never cached', async () => {
    const res = await fetch(`${base}/api/nope?secret=1`);
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toBe(PROBLEM_CONTENT_TYPE);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    const body = await res.text();
    expect(JSON.parse(body)).toEqual({
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'No API route answers this path.',
    });
    // Nothing the client sent comes back.
    expect(body).not.toContain('secret');
  });

  it('sends no body to HEAD, with the length a GET would have', async () => {
    const get = await fetch(`${base}/api/nope`);
    const head = await fetch(`${base}/api/nope`, { method: 'HEAD' });
    expect(head.status).toBe(404);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-length')).toBe(get.headers.get('content-length'));
  });
});

describe("sendProblem and a product's own headers", () => {
  const API_CSP = "default-src 'none'; frame-ancestors 'none'";

  it("replaces a page's security headers with the API's, set before the head", () => {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    res.setHeader('Content-Security-Policy', securityHeaders()['Content-Security-Policy']);
    sendProblem(res, 404, 'No API route answers this path.');
    expect(res.getHeader('content-security-policy')).toBe(API_CSP);
    expect(res.getHeader('x-frame-options')).toBe('DENY');
  });

  // The API 404 a product's CSP was replaced on: its headers, set as the head is written, win.
  it('leaves a product header of the same name in place of its default', () => {
    const req = new IncomingMessage(new Socket());
    const res = new ShellResponse(req);
    const product = { 'Content-Security-Policy': "default-src 'none'; sandbox", 'Cache-Control': 'public' };
    applyProductHeaders(() => product, res, '/api/missing');
    sendProblem(res, 404, 'No API route answers this path.');
    expect(res.getHeader('content-security-policy')).toBe("default-src 'none'; sandbox");
    // The answer's own headers stay its own, as a route's do under Next.
    expect(res.getHeader('cache-control')).toBe('no-store');
    expect(res.getHeader('content-type')).toBe(PROBLEM_CONTENT_TYPE);
  });
});
