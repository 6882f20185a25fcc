import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { once } from 'node:events';
import {
  ALLOW,
  answeredBeforeItsBody,
  answeredBeforeNext,
  clientErrorAnswer,
  guardConnections,
  refuseTooManyParams,
} from '../../../../lib/server/guards';

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
    statusCode: 200,
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
    ['OPTIONS', 'example.com:443'],
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

  it('says "Bad request." for a 400, and the status for the others', () => {
    expect(clientErrorAnswer('HPE_INVALID_METHOD')).toEqual({ status: 400, message: 'Bad request.' });
    expect(clientErrorAnswer('HPE_HEADER_OVERFLOW')).toEqual({
      status: 431,
      message: '431: request refused.',
    });
  });

  it.each(['ECONNRESET', 'EPIPE'])('writes nothing when the client is gone (%s)', (code) => {
    expect(clientErrorAnswer(code)).toBeNull();
  });
});

describe('guardConnections on a real server', () => {
  let server: Server;
  let releaseHeld: () => void = () => {};
  let heldStarted: Promise<void>;

  beforeEach(async () => {
    let started!: () => void;
    heldStarted = new Promise((resolve) => (started = resolve));
    server = createServer((req, res) => {
      if (req.url === '/late') {
        // Headers not sent yet when the pipelined request after it fails to parse.
        started();
        releaseHeld = () => res.end('late');
        return;
      }
      if (req.url !== '/held') return void res.end('quick');
      // A response that is in flight until the test lets it finish.
      started();
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('first part, ');
      releaseHeld = () => res.end('second part');
    });
    guardConnections(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });

  afterEach(async () => {
    releaseHeld();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  function openSocket(): Socket {
    return connect((server.address() as AddressInfo).port, '127.0.0.1');
  }

  function received(socket: Socket): Promise<string> {
    return new Promise((resolve) => {
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', () => {});
    });
  }

  it('answers a parser error on an idle connection with its 4xx', async () => {
    const socket = openSocket();
    const text = received(socket);
    socket.write('BREW / HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
  });

  it.each([
    ['a target that is not a path', 'HEAD foo HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['an upgrade', 'HEAD / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n'],
  ])(
    'answers HEAD with the head alone, for %s (a body would be read as the next answer)',
    async (_what, request) => {
      const socket = openSocket();
      const text = received(socket);
      socket.write(request);
      const answer = await text;
      expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
      expect(answer.endsWith('\r\n\r\n')).toBe(true);
      expect(answer).toMatch(/\r\nContent-Length: \d+\r\n/);
    },
  );

  it('answers GET of a target that is not a path with the words too', async () => {
    const socket = openSocket();
    const text = received(socket);
    socket.write('GET foo HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await text).toMatch(/\r\n\r\nBad request\.$/);
  });

  /**
   * Asks for `path`, then, while its answer is held, sends a pipelined request that does not parse;
   * lets the answer finish and gives back all the connection received.
   */
  async function badRequestWhileAnswering(path: string): Promise<string> {
    const socket = openSocket();
    const text = received(socket);
    socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await heldStarted;
    const parseError = once(server, 'clientError');
    socket.write('BREW / HTTP/1.1\r\nHost: x\r\n\r\n');
    await parseError;
    releaseHeld();
    return text;
  }

  it('lets a response in flight finish, writes nothing for the bad request after it, and closes', async () => {
    // /held is half written when the bad request comes.
    const got = await badRequestWhileAnswering('/held');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    // The whole chunked body, then the end of it, and nothing after.
    expect(got).toMatch(/first part, \r\n[0-9a-f]+\r\nsecond part\r\n0\r\n\r\n$/);
    expect(got).not.toContain('HTTP/1.1 4');
  });

  it('closes the connection after a response whose headers were not sent yet, saying so in them', async () => {
    const got = await badRequestWhileAnswering('/late');
    expect(got).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(got).toMatch(/\r\nConnection: close\r\n/i);
    expect(got).not.toContain('HTTP/1.1 4');
  });

  it('refuses CONNECT with 405, naming the methods it takes', async () => {
    const socket = openSocket();
    const text = received(socket);
    socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const got = await text;
    expect(got).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
    expect(got).toContain(`\r\nAllow: ${ALLOW}\r\n`);
    expect(got).toMatch(/\r\n\r\nCONNECT is not supported\.\n?$/);
  });

  it('refuses a protocol upgrade with 400, saying so', async () => {
    const socket = openSocket();
    const text = received(socket);
    socket.write('GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    const got = await text;
    expect(got).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(got).toMatch(/\r\n\r\nBad request: this server does not accept protocol upgrades\.\n?$/);
  });
});

describe('answeredBeforeItsBody', () => {
  const socketReading = (incoming: object | null) => ({ parser: { incoming } }) as unknown as Socket;

  it('is true only while a request answered early is still being discarded', () => {
    expect(answeredBeforeItsBody(socketReading({ complete: false, _dumped: true }))).toBe(true);
    expect(answeredBeforeItsBody(socketReading({ complete: true, _dumped: true }))).toBe(false);
    expect(answeredBeforeItsBody(socketReading({ complete: false, _dumped: false }))).toBe(false);
    expect(answeredBeforeItsBody(socketReading(null))).toBe(false);
  });
});

describe('refuseTooManyParams', () => {
  it('answers an API client’s HEAD with the problem’s headers and no body', () => {
    const res = fakeResponse();
    refuseTooManyParams(
      fakeRequest({ url: '/api/orders', method: 'HEAD' }),
      res as unknown as ServerResponse,
      () => Promise.resolve(),
    );
    expect(res.status).toBe(414);
    expect(res.body).toBe('');
  });

  it('answers API clients with problem details, without rendering a screen', () => {
    const res = fakeResponse();
    const renderScreen = jest.fn(() => Promise.resolve());
    refuseTooManyParams(fakeRequest({ url: '/api/orders' }), res as unknown as ServerResponse, renderScreen);
    expect(renderScreen).not.toHaveBeenCalled();
    expect(res.status).toBe(414);
    expect(res.headers['Content-Type']).toBe('application/problem+json');
    expect(JSON.parse(res.body)).toEqual(expect.objectContaining({ status: 414, title: 'URI Too Long' }));
  });

  it('has Next render the bad-request screen for browsers, with status 414', () => {
    const res = fakeResponse();
    const renderScreen = jest.fn(() => Promise.resolve());
    refuseTooManyParams(fakeRequest({ url: '/search' }), res as unknown as ServerResponse, renderScreen);
    expect(renderScreen).toHaveBeenCalledTimes(1);
    expect(res.statusCode).toBe(414);
  });

  it('still answers 414 when the screen cannot be rendered', async () => {
    const res = fakeResponse();
    refuseTooManyParams(fakeRequest({ url: '/search' }), res as unknown as ServerResponse, () =>
      Promise.reject(new Error('render failed')),
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(res.status).toBe(414);
    expect(res.body).toContain('query parameters');
  });
});
