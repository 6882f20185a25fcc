import { LANGUAGE_COPY } from '@lib/screens/languages';
import { screenMarkup as markup } from '../../../../components/error-screen/markup';
import { htmlStartTag, notFoundDocument } from '@lib/error-pages/not-found-pages';
import { NOT_FOUND_BODY, NOT_FOUND_HEADS } from './__fixtures__/next-404-heads';

// The shape of the 404.html Next prerenders from pages/404.tsx and _document (its head trimmed).
const TEMPLATE =
  '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charSet="utf-8" data-next-head=""/>' +
  '<title data-next-head="">Page not found – This service</title>' +
  '<link rel="stylesheet" href="/_next/static/css/a.css" data-n-g=""/></head><body><div id="__next">' +
  '<main class="es-main" data-screen="not-found" lang="en" dir="ltr"><h1 class="es-heading">Page not found</h1></main>' +
  '</div></body></html>';

const SHAPE_ERROR =
  "Next's 404.html is not shaped as lib/error-pages/not-found-pages.ts expects: " +
  'a document starting with <html>, one <title>, and the page in <div id="__next"> at the end of <body>.';

describe('notFoundDocument: Next’s 404 in another language', () => {
  it.each(['fr', 'de', 'es', 'ar'])(
    '%s: its lang, dir, title and words, and the head Next made',
    (language) => {
      const { common, screens } = LANGUAGE_COPY[language]!;
      const html = notFoundDocument(TEMPLATE, screens['not-found'], common, markup);
      expect(html).toMatch(new RegExp(`^<!DOCTYPE html><html lang="${language}" dir="${common.dir}"><head>`));
      expect(html).toContain(
        `<title data-next-head="">${screens['not-found'].heading} – This service</title>`,
      );
      expect(html).toContain('<link rel="stylesheet" href="/_next/static/css/a.css" data-n-g=""/>');
      expect(html).toContain(`<h1 class="es-heading">${screens['not-found'].heading}</h1>`);
      for (const paragraph of screens['not-found'].paragraphs) expect(html).toContain(paragraph);
      expect(html).not.toContain('Page not found');
      expect(html).not.toMatch(/<script/);
      expect(html.endsWith('</div></body></html>')).toBe(true);
    },
  );

  it.each(Object.keys(NOT_FOUND_HEADS))(
    'reads the 404 of a build with %s: the head as Next wrote it, the language’s lang and dir',
    (setting) => {
      const head = NOT_FOUND_HEADS[setting]!;
      const { common, screens } = LANGUAGE_COPY.ar!;
      const html = notFoundDocument(`${head}${NOT_FOUND_BODY}`, screens['not-found'], common, markup);
      const start = /^<!DOCTYPE html>(<html[^>]*>)/.exec(head)![1]!;
      const expected = start.replace('lang="en"', 'lang="ar"').replace('dir="ltr"', 'dir="rtl"');
      expect(html.startsWith(`<!DOCTYPE html>${expected}<head>`)).toBe(true);
      // Everything else of the head Next made (the stylesheet with its `?dpl=`, its prefix) as it was.
      const rest = head.slice(`<!DOCTYPE html>${start}`.length).replace(/(<title[^>]*>)[^<]*/, '$1');
      expect(html.replace(/(<title[^>]*>)[^<]*/, '$1')).toContain(rest);
      expect(html).toContain(`${screens['not-found'].heading} – This service</title>`);
      expect(html).toContain(`<h1 class="es-heading">${screens['not-found'].heading}</h1>`);
    },
  );

  it('reads a start tag written with more white space than React writes', () => {
    const { common, screens } = LANGUAGE_COPY.fr!;
    const template = TEMPLATE.replace('<html lang="en" dir="ltr">', '<html\n  lang="en"  dir="ltr" >');
    expect(notFoundDocument(template, screens['not-found'], common, markup)).toMatch(
      /^<!DOCTYPE html><html lang="fr" dir="ltr"><head>/,
    );
  });

  it('keeps the deployment id a build with deploymentId puts on <html>', () => {
    const { common, screens } = LANGUAGE_COPY.fr!;
    const head = NOT_FOUND_HEADS['deployment-id']!;
    expect(notFoundDocument(`${head}${NOT_FOUND_BODY}`, screens['not-found'], common, markup)).toMatch(
      /^<!DOCTYPE html><html lang="fr" dir="ltr" data-dpl-id="deploy-one"><head>/,
    );
  });

  it('fails the build when Next’s document is not shaped as it expects', () => {
    const { common, screens } = LANGUAGE_COPY.fr!;
    for (const template of [
      TEMPLATE.replace(/<title[^]*<\/title>/, ''),
      TEMPLATE.replace('<div id="__next">', '<div>'),
      `${TEMPLATE}<script src="/x.js"></script>`,
      // The document must start with it: <html> inside a comment or a string is not the page's.
      `<!-- x -->${TEMPLATE}`,
      TEMPLATE.replace('<html lang="en" dir="ltr">', "<html lang='en'>"),
      TEMPLATE.replace('<html lang="en" dir="ltr">', '<html lang="en" dir="ltr"'),
      TEMPLATE.replace('<html lang="en" dir="ltr">', '<html lang="en" hidden>'),
      TEMPLATE.replace('<!DOCTYPE html>', '<!doctype html>'),
    ])
      expect(() => notFoundDocument(template, screens['not-found'], common, markup)).toThrow(SHAPE_ERROR);
  });
});

describe('htmlStartTag: the <html> start tag in a language', () => {
  it('puts lang and dir where the build had them, every other attribute as it was', () => {
    expect(htmlStartTag(' data-theme="light" dir="ltr" lang="en" data-dpl-id="d1"', 'ar', 'rtl')).toBe(
      '<html data-theme="light" dir="rtl" lang="ar" data-dpl-id="d1">',
    );
  });

  it('adds lang and dir when the build had none, after the rest', () => {
    expect(htmlStartTag('', 'fr', 'ltr')).toBe('<html lang="fr" dir="ltr">');
    expect(htmlStartTag(' data-dpl-id="d1"', 'fr', 'ltr')).toBe(
      '<html data-dpl-id="d1" lang="fr" dir="ltr">',
    );
    expect(htmlStartTag(' lang="en"', 'ar', 'rtl')).toBe('<html lang="ar" dir="rtl">');
  });

  it('reads names in any case, and writes each once', () => {
    expect(htmlStartTag(' LANG="en" hidden="" DIR="ltr"', 'de', 'ltr')).toBe(
      '<html lang="de" hidden="" dir="ltr">',
    );
  });

  it('reads attributes apart by any white space, and writes them one space apart', () => {
    expect(htmlStartTag('\n  lang="en"\tdir="ltr"  ', 'fr', 'ltr')).toBe('<html lang="fr" dir="ltr">');
  });

  it('escapes what it writes', () => {
    expect(htmlStartTag('', 'x"><script>', 'ltr')).toBe('<html lang="x&quot;&gt;&lt;script&gt;" dir="ltr">');
  });
});
