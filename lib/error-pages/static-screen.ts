// A screen as one standalone HTML document with no JavaScript and nothing to load: its style inline,
// and a refresh that asks for the page again. For the balancer's pages (./balancer-pages.ts), which
// are served while no instance of the app can answer, so they can fetch nothing from it. The screen's
// markup is the caller's (components/error-screen/markup.tsx renders ErrorScreen): lib/ draws nothing.
import type { CommonCopy, ScreenCopy } from '../screens/types';
import { site } from '../config/site';

/** A screen's body markup, in its words (components/error-screen/markup.tsx). */
export type ScreenMarkup = (copy: ScreenCopy, words: CommonCopy) => string;

export interface StaticScreen {
  copy: ScreenCopy;
  /** The words its language shares, with its `lang` and `dir`. */
  words: CommonCopy;
  /** The build's own stylesheet, so the screen looks like every other screen of the app. */
  css: string;
  /** How often the page asks again, in seconds: a meta refresh, which needs no JavaScript. */
  refreshSeconds?: number;
  /** An inline script, at the end of the body. */
  script?: string;
  /** What draws the screen. */
  markup: ScreenMarkup;
}

/** Text that cannot end an inline <script> or <style> element early, whatever it holds. */
export function inlineText(text: string, element: 'script' | 'style'): string {
  return text.replace(new RegExp(`</${element}`, 'gi'), `<\\/${element}`);
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (char) => ESCAPES[char]!);

/** A screen's <title>: its heading, then the service's name. */
export const screenTitle = (copy: ScreenCopy) => `${copy.heading} – ${site.serviceName}`;

export function staticScreenDocument({
  copy,
  words,
  css,
  refreshSeconds,
  script,
  markup,
}: StaticScreen): string {
  // ErrorScreen's <Head> renders nothing outside Next: the head is written here.
  const body = markup(copy, words);
  const style = inlineText(css, 'style');
  return [
    `<!DOCTYPE html><html lang="${escapeHtml(words.lang)}" dir="${words.dir}"><head>`,
    '<meta charset="utf-8"><meta name="viewport" content="width=device-width">',
    '<meta name="robots" content="noindex">',
    refreshSeconds === undefined ? '' : `<meta http-equiv="refresh" content="${refreshSeconds}">`,
    `<title>${escapeHtml(screenTitle(copy))}</title>`,
    `<style>${style}</style>`,
    `</head><body><div id="__next">${body}</div>`,
    script === undefined ? '' : `<script>${inlineText(script, 'script')}</script>`,
    '</body></html>',
  ].join('');
}
