// The server's side of ./recovery.ts: a page that lost a build file says so with an empty POST,
// counted in app_client_lost_files_total by what the page did about it. Anyone can send it; all it
// can do is add one to one of two series, and a body is never read.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { sendPlain } from '../http/plain-response';
import { recordLostFile, type LostFileRecovery } from '../metrics/record';

const RECOVERIES: readonly LostFileRecovery[] = ['reload', 'none'];

export function answerLostFileBeacon(req: IncomingMessage, res: ServerResponse, query: string): void {
  if (req.method !== 'POST') return sendPlain(res, 405, 'Only POST.', { Allow: 'POST' });
  // The body, if any, is not wanted: the connection closes rather than reading it.
  if (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
    res.shouldKeepAlive = false;
  const recovery = new URLSearchParams(query).get('recovery');
  const known = RECOVERIES.find((value) => value === recovery);
  if (!known) return sendPlain(res, 400, 'recovery must be reload or none.');
  recordLostFile(known);
  res.writeHead(204, { 'Cache-Control': 'no-store' }).end();
}
