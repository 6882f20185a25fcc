// The server's side of ./browser-copy.ts: the client-exception words of the first language of a
// browser's `navigator.languages` (the `languages` query parameter) the build offers, as JSON, made
// once at start from the languages' table. Anyone may ask; the answers are a fixed set of a few
// hundred bytes each, the list is read as far as an Accept-Language header is (./negotiate.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { copyIn } from '../screens/languages';
import { sendPlain } from '../http/plain-response';
import type { BrowserCopy } from './browser-copy';
import { languagesParameter } from './list-as-header';
import { negotiateLanguage } from './negotiate';
import { WORDS_PATH } from './paths';

/** Answers the request if it is for the words, and says so; otherwise leaves it alone. */
export type WordsStage = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

/** @param languages the build's, the default first (./offered.ts) */
export function wordsStage(languages: readonly [string, ...string[]]): WordsStage {
  const [fallback] = languages;
  const answers = new Map(
    languages.map((language) => {
      const { common, screens } = copyIn(language);
      const copy: BrowserCopy = { words: common, screen: screens['client-exception'] };
      const body = Buffer.from(JSON.stringify(copy));
      const headers = {
        'Content-Type': 'application/json; charset=utf-8',
        'Content-Length': String(body.length),
        // Kept by the browser for an hour: every page asks once it has loaded. A deploy that
        // corrects the words reaches a visitor within the hour.
        'Cache-Control': 'private, max-age=3600',
      };
      return [language, { body, headers }] as const;
    }),
  );
  return (req, res, pathname) => {
    if (pathname !== WORDS_PATH) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendPlain(res, 405, 'Only GET.', { Allow: 'GET, HEAD' });
      return true;
    }
    const { body, headers } = answers.get(
      negotiateLanguage(languagesParameter(req.url), languages, fallback),
    )!;
    // Node sends no body in answer to HEAD, whatever end() is given.
    res.writeHead(200, headers).end(body);
    return true;
  };
}
