// The server's side of ./recovery.ts: a page that reloaded because a build file was gone everywhere
// says so with an empty POST, counted in app_client_lost_file_reloads_total. Anyone can send it; all
// it can do is add one to that counter, and a body is never read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendPlain } from '../http/plain-response';
import { recordLostFileReload } from '../metrics/record';

export function answerLostFileBeacon(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'POST') return sendPlain(res, 405, 'Only POST.', { Allow: 'POST' });
  // The body, if any, is not wanted: the connection closes rather than reading it.
  if (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
    res.shouldKeepAlive = false;
  recordLostFileReload();
  res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
}
