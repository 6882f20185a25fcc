// The server's side of ./recovery.ts: a page that reloaded because a build file was gone everywhere
// says so with an empty POST, counted in app_client_lost_file_reloads_total within the beacons'
// bounds (lib/http/beacon.ts: this site's pages only, no body, so many a minute).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { answerBeacon } from '../http/beacon';
import { recordLostFileReload } from '../metrics/record';

export function answerLostFileBeacon(req: IncomingMessage, res: ServerResponse): void {
  answerBeacon(req, res, 'lost_file', recordLostFileReload);
}
