// "Page not found" in every language a build offers, made by `npm run build` (scripts/error-pages.ts)
// from the one Next prerendered (pages/404.tsx, in the default language): the same document, so
// whatever _document and the build put in its head (the stylesheet, meta tags) is in every one,
// with the language's `lang`, `dir`, title and words. The server answers unknown paths with them
// (lib/server/not-found.ts). Like Next's, they carry no JavaScript.
import type { CommonCopy, ScreenCopy } from '../../components/error-screen/copy/types';
import { escapeHtml, screenMarkup, screenTitle } from './static-screen';

const HTML_START = /^<!DOCTYPE html><html lang="[^"]*" dir="[^"]*">/;
const TITLE = /(<title[^>]*>)[^<]*(<\/title>)/;
const ROOT_START = '<div id="__next">';
const ROOT_END = '</div></body></html>';

/**
 * Next's 404.html with `copy` and `words` in place of its own. Throws (and so fails the build) when
 * the document is not shaped as expected: a Next upgrade that changes it must be looked at.
 */
export function notFoundDocument(template: string, copy: ScreenCopy, words: CommonCopy): string {
  const rootStart = template.indexOf(ROOT_START);
  if (!HTML_START.test(template) || !TITLE.test(template) || rootStart === -1 || !template.endsWith(ROOT_END))
    throw new Error(
      "Next's 404.html is not shaped as lib/error-pages/not-found-pages.ts expects: " +
        '<html lang dir>, one <title>, and the page in <div id="__next"> at the end of <body>.',
    );
  const head = template
    .slice(0, rootStart)
    .replace(HTML_START, `<!DOCTYPE html><html lang="${escapeHtml(words.lang)}" dir="${words.dir}">`)
    .replace(
      TITLE,
      (_match, open: string, close: string) => `${open}${escapeHtml(screenTitle(copy))}${close}`,
    );
  return `${head}${ROOT_START}${screenMarkup(copy, words)}${ROOT_END}`;
}
