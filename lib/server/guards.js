// Answers for requests that should never reach Next: odd request targets, CONNECT, and requests
// Node's parser rejects. Each gets a clear 4xx with the security headers, never a crash or a hang.
const { log } = require('../log/json-line.js');
const { SECURITY_HEADERS, sendPlain, writePlainToSocket } = require('../http/plain-response.js');
const { parseRequestTarget } = require('../http/request-target.js');

const ALLOW = 'GET, HEAD, OPTIONS, POST, PUT, PATCH, DELETE';

/**
 * Normalises `req.url` to a path, or answers the request itself. Returns true when it answered.
 * @param {import('node:http').IncomingMessage} req
 * @param {import('node:http').ServerResponse} res
 */
function answeredBeforeNext(req, res) {
  // HTTP/1.1 requires Host (RFC 9112 §3.2). The server turns off Node's own check, whose 400
  // carries none of the security headers, and makes it here.
  if (req.httpVersion === '1.1' && !req.headers.host) {
    sendPlain(res, 400, 'Bad request: HTTP/1.1 requests need a Host header.');
    return true;
  }
  const target = parseRequestTarget(req.url);
  if (target.kind === 'path') {
    req.url = target.path;
    return false;
  }
  if (target.kind === 'asterisk' && req.method === 'OPTIONS') {
    res.writeHead(204, { ...SECURITY_HEADERS, Allow: ALLOW, 'Cache-Control': 'no-store' });
    res.end();
    return true;
  }
  sendPlain(res, 400, 'Bad request: the request target must be a path.');
  return true;
}

/** Parser errors Node reports, by code, and the status each deserves. */
const CLIENT_ERROR_STATUS = /** @type {Record<string, number>} */ ({
  HPE_HEADER_OVERFLOW: 431,
  HPE_URI_TOO_LONG: 414,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADERS_TIMEOUT: 408,
});

/**
 * @param {import('node:http').Server} server
 */
function installGuards(server) {
  server.on('clientError', (error, socket) => {
    const code = /** @type {{ code?: string }} */ (error).code ?? '';
    // The client went away: nobody to answer.
    if (code === 'ECONNRESET' || code === 'EPIPE') {
      socket.destroy();
      return;
    }
    const status = CLIENT_ERROR_STATUS[code] ?? 400;
    writePlainToSocket(socket, status, status === 400 ? 'Bad request.' : `${status}: request refused.`);
  });
  // No proxying here: CONNECT gets a clear refusal instead of a dropped socket.
  server.on('connect', (_req, socket) => {
    writePlainToSocket(socket, 405, 'CONNECT is not supported.', { Allow: ALLOW });
  });
  server.on('error', (error) => log('error', 'server.error_event', { message: String(error) }));
}

/**
 * WebSocket (and other) upgrades: nothing here accepts them in production, so say so instead of
 * leaving the socket open with no answer. (`npm run dev` hands them to Next for hot reloading.)
 * @param {import('node:http').Server} server
 */
function refuseUpgrades(server) {
  server.on('upgrade', (_req, socket) => {
    writePlainToSocket(socket, 400, 'Bad request: this server does not accept protocol upgrades.');
  });
}

module.exports = { answeredBeforeNext, installGuards, refuseUpgrades };
