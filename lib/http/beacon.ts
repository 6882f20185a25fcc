// A page's beacon (navigator.sendBeacon, or the service worker's empty POST): anyone can send one,
// and all it can do is what `count` does. Only POST; the body, if any, is never read: the connection
// closes rather than read it. Answered 204, never cached.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendPlain } from './plain-response';

export function answerBeacon(req: IncomingMessage, res: ServerResponse, count: () => void): void {
  if (req.method !== 'POST') return sendPlain(res, 405, 'Only POST.', { Allow: 'POST' });
  if (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
    res.shouldKeepAlive = false;
  count();
  res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
}
