import { LANGUAGE_COPY } from '../../../../components/error-screen/copy/languages';
import { notFoundDocument } from '../../../../lib/error-pages/not-found-pages';

// The shape of the 404.html Next prerenders from pages/404.tsx and _document (its head trimmed).
const TEMPLATE =
  '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charSet="utf-8" data-next-head=""/>' +
  '<title data-next-head="">Page not found – This service</title>' +
  '<link rel="stylesheet" href="/_next/static/css/a.css" data-n-g=""/></head><body><div id="__next">' +
  '<main class="es-main" data-screen="not-found" lang="en" dir="ltr"><h1 class="es-heading">Page not found</h1></main>' +
  '</div></body></html>';

describe('notFoundDocument: Next’s 404 in another language', () => {
  it.each(['fr', 'de', 'es', 'ar'])(
    '%s: its lang, dir, title and words, and the head Next made',
    (language) => {
      const { common, screens } = LANGUAGE_COPY[language]!;
      const html = notFoundDocument(TEMPLATE, screens['not-found'], common);
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

  it('fails the build when Next’s document is not shaped as it expects', () => {
    const { common, screens } = LANGUAGE_COPY.fr!;
    for (const template of [
      TEMPLATE.replace(' dir="ltr"', ''),
      TEMPLATE.replace(/<title[^]*<\/title>/, ''),
      TEMPLATE.replace('<div id="__next">', '<div>'),
      `${TEMPLATE}<script src="/x.js"></script>`,
      // The document must start with it: <html> inside a comment or a string is not the page's.
      `<!-- x -->${TEMPLATE}`,
    ])
      expect(() => notFoundDocument(template, screens['not-found'], common)).toThrow(
        "Next's 404.html is not shaped as lib/error-pages/not-found-pages.ts expects: " +
          '<html lang dir>, one <title>, and the page in <div id="__next"> at the end of <body>.',
      );
  });
});
