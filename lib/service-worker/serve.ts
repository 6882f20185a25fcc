// The server's side of the service worker: its script at WORKER_PATH, and the beacons that say a
// visitor saw one of its screens (SCREEN_SEEN_PATH/<screen>), counted in
// app_client_outage_screens_total within the beacons' bounds (lib/http/beacon.ts: this site's pages
// only, no body, so many a minute), on a counter whose labels are fixed.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { OutageKind } from '../screens/types';
import { answerBeacon } from '../http/beacon';
import { languagesParameter } from '../language/list-as-header';
import { negotiateLanguage } from '../language/negotiate';
import { sendPlain } from '../http/plain-response';
import { recordOutageScreen } from '../metrics/record';
import { SCREEN_SEEN_PATH, WORKER_PATH } from './paths';

/** Where the build keeps the worker's script in a language (scripts/service-worker.ts writes it). */
export const workerFile = (language: string) => `service-worker/${language}.js`;

/** The worker's script in each language a build offers, the default first. */
export type WorkerScripts = ReadonlyMap<string, Buffer>;

const SCREENS: ReadonlySet<string> = new Set<OutageKind>(['offline', 'unavailable']);
const SEEN_PREFIX = `${SCREEN_SEEN_PATH}/`;

/** Answers the request if it is the worker's, and says so; otherwise leaves it alone. */
export type WorkerStage = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

/**
 * `scripts`: the workers this server hands out, one per language, each visitor theirs: by the
 * `languages` the page registers it with (navigator.languages, lib/service-worker/register.ts), or
 * else by Accept-Language. A visitor who changes languages registers a new address, which the
 * browser takes as an update. Null or empty when the build has none (made before the worker existed): then its
 * path is a 404, and a browser's registration simply fails.
 */
export function serviceWorkerStage(scripts: WorkerScripts | null): WorkerStage {
  const languages = [...(scripts?.keys() ?? [])];
  const answers = new Map(
    [...(scripts ?? [])].map(([language, script]) => [
      language,
      {
        script,
        headers: {
          'Content-Type': 'text/javascript; charset=utf-8',
          'Content-Length': String(script.length),
          // Browsers ask for the script past their HTTP cache anyway; anything between must ask too.
          'Cache-Control': 'no-cache',
          // The script is under /_next/app-shell/, and controls every page of the origin.
          'Service-Worker-Allowed': '/',
          ...(languages.length > 1 ? { Vary: 'Accept-Language' } : {}),
        },
      },
    ]),
  );
  return (req, res, pathname) => {
    if (pathname === WORKER_PATH) {
      const fallback = languages[0];
      if (fallback === undefined) sendPlain(res, 404, 'This build has no service worker.');
      else if (req.method !== 'GET' && req.method !== 'HEAD')
        sendPlain(res, 405, 'Only GET.', { Allow: 'GET, HEAD' });
      else {
        const preference = languagesParameter(req.url) ?? req.headers['accept-language'];
        const language = negotiateLanguage(preference, languages, fallback);
        const { script, headers } = answers.get(language)!;
        res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : script);
      }
      return true;
    }
    if (!pathname.startsWith(SEEN_PREFIX)) return false;
    const screen = pathname.slice(SEEN_PREFIX.length);
    if (!SCREENS.has(screen)) sendPlain(res, 404, 'No such screen.');
    else {
      const seen = screen as OutageKind;
      // Each screen its own window: one spent leaves the other's count whole.
      answerBeacon(req, res, `screen_seen:${seen}`, () => recordOutageScreen(seen));
    }
    return true;
  };
}

/** The build's worker scripts, in `languages` (the default first); null when it has none. */
export function readWorkerScripts(
  root: string,
  distDir: string,
  languages: readonly string[],
): WorkerScripts | null {
  try {
    return new Map(
      languages.map((language) => [language, readFileSync(path.join(root, distDir, workerFile(language)))]),
    );
  } catch {
    return null;
  }
}
