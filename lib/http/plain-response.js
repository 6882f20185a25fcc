// Small plain-text answers the server gives itself (tunnel, bad request targets, parser errors),
// always with the same security headers as every other response. Never throws.
const { STATUS_CODES } = require('node:http');
const { securityHeaders } = require('./security-headers.js');

const SECURITY_HEADERS = Object.fromEntries(securityHeaders().map(({ key, value }) => [key, value]));

/**
 * @param {string} message
 * @param {Record<string, string>} [extra]
 */
function plainHeaders(message, extra = {}) {
  return {
    ...SECURITY_HEADERS,
    'Cache-Control': 'no-store',
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(message)),
    ...extra,
  };
}

/**
 * Answers on a normal response object.
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {string} message
 * @param {Record<string, string>} [extra]
 */
function sendPlain(res, status, message, extra = {}) {
  try {
    if (res.headersSent || res.destroyed) return;
    res.writeHead(status, plainHeaders(message, extra));
    res.end(message);
  } catch {
    res.destroy();
  }
}

/**
 * Answers straight on a socket, for requests Node never turned into a response object (parser
 * errors, CONNECT), then closes it.
 * @param {import('node:stream').Duplex} socket
 * @param {number} status
 * @param {string} message
 * @param {Record<string, string>} [extra]
 */
function writePlainToSocket(socket, status, message, extra = {}) {
  try {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    const headers = { ...plainHeaders(message, extra), Connection: 'close' };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n\r\n${message}`);
  } catch {
    socket.destroy();
  }
}

module.exports = { sendPlain, writePlainToSocket, SECURITY_HEADERS };
