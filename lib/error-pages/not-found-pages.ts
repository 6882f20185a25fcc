// "Page not found" in every language a build offers, made by `npm run build` (scripts/error-pages.ts)
// from the one Next prerendered (pages/404.tsx, in the default language): the same document, so
// whatever _document and the build put in its head (the stylesheet, meta tags) is in every one,
// with the language's `lang`, `dir`, title and words. The server answers unknown paths with them
// (lib/server/not-found.ts). Like Next's, they carry no JavaScript.
import type { CommonCopy, ScreenCopy } from '../screens/types';
import { escapeHtml, type ScreenMarkup, screenTitle } from './static-screen';

/**
 * The document's start and its <html> start tag, with whatever attributes the build gives it, in
 * any order: `lang` and `dir` from _document, `data-dpl-id` with `deploymentId`, a product's own.
 * React writes every attribute as name="value" (`hidden=""` for a true boolean), its `"` escaped
 * inside, so this one pattern reads all it writes; anything else fails the build in one line.
 */
const HTML_START = /^<!DOCTYPE html><html((?:\s+[^\s"'>/=]+="[^"]*")*)\s*>/;
const ATTRIBUTE = /\s+([^\s"'>/=]+)="([^"]*)"/g;
const TITLE = /(<title[^>]*>)[^<]*(<\/title>)/;
const ROOT_START = '<div id="__next">';
const ROOT_END = '</div></body></html>';

/**
 * The <html> start tag `attributes` (as the template wrote them) make, with `lang` and `dir` in
 * their place (added at the end when the template had none), every other attribute as it was.
 */
export function htmlStartTag(attributes: string, lang: string, dir: string): string {
  const wanted = new Map([
    ['lang', escapeHtml(lang)],
    ['dir', escapeHtml(dir)],
  ]);
  const written: string[] = [];
  for (const [, name, value] of attributes.matchAll(ATTRIBUTE)) {
    const key = name!.toLowerCase();
    const own = wanted.get(key);
    if (own === undefined) {
      written.push(`${name}="${value}"`);
    } else {
      written.push(`${key}="${own}"`);
      wanted.delete(key);
    }
  }
  for (const [key, value] of wanted) written.push(`${key}="${value}"`);
  return `<html ${written.join(' ')}>`;
}

/**
 * Next's 404.html with `copy` and `words` in place of its own, drawn by `markup`. Throws (and so fails the build) when
 * the document is not shaped as expected: a Next upgrade that changes it must be looked at.
 */
export function notFoundDocument(
  template: string,
  copy: ScreenCopy,
  words: CommonCopy,
  markup: ScreenMarkup,
): string {
  const rootStart = template.indexOf(ROOT_START);
  const start = HTML_START.exec(template);
  if (!start || !TITLE.test(template) || rootStart === -1 || !template.endsWith(ROOT_END))
    throw new Error(
      "Next's 404.html is not shaped as lib/error-pages/not-found-pages.ts expects: " +
        'a document starting with <html>, one <title>, and the page in <div id="__next"> at the end of <body>.',
    );
  const head = template
    .slice(start[0].length, rootStart)
    .replace(
      TITLE,
      (_match, open: string, close: string) => `${open}${escapeHtml(screenTitle(copy))}${close}`,
    );
  const html = htmlStartTag(start[1]!, words.lang, words.dir);
  return `<!DOCTYPE html>${html}${head}${ROOT_START}${markup(copy, words)}${ROOT_END}`;
}
