// The language of a screen the server renders (pages/_error.tsx), from the request's
// Accept-Language among the languages on offer; the answer then varies on that header.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { addVary } from '../http/vary';
import { negotiateLanguage } from './negotiate';
import { defaultLanguage, offeredLanguages } from './offered';

export function screenLanguageFor(req: IncomingMessage, res: ServerResponse | undefined): string {
  const language = negotiateLanguage(req.headers['accept-language'], offeredLanguages(), defaultLanguage());
  if (res && !res.headersSent) {
    addVary(res, 'Accept-Language');
    res.setHeader('Content-Language', language);
  }
  return language;
}
