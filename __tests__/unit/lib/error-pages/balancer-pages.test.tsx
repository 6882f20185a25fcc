import { common as arabic } from '@lib/screens/ar/common';
import { unavailable as arabicUnavailable } from '@lib/screens/ar/unavailable';
import { common } from '@lib/screens/en/common';
import { unavailable } from '@lib/screens/en/unavailable';
import {
  BALANCER_STATUSES,
  ERRORFILE_MAX_BYTES,
  haproxyErrorFile,
  haproxyLanguageRules,
  RETRY_SECONDS,
} from '@lib/error-pages/balancer-pages';
import { escapeHtml, inlineText, staticScreenDocument } from '@lib/error-pages/static-screen';
import { screenMarkup as markup } from '../../../../components/error-screen/markup';

const CSS = '.es-main{max-width:40rem}';

describe('staticScreenDocument', () => {
  const html = staticScreenDocument({
    markup,
    copy: unavailable,
    words: common,
    css: CSS,
    refreshSeconds: 5,
  });

  it('is the shell’s screen, marked for machines, with its words', () => {
    expect(html).toMatch(/^<!DOCTYPE html><html lang="en" dir="ltr">/);
    expect(html).toContain('<main class="es-main" data-screen="unavailable" lang="en" dir="ltr">');
    expect(html).toContain('<h1 class="es-heading">Sorry, the service is unavailable</h1>');
    expect(html).toContain('<title>Sorry, the service is unavailable – This service</title>');
    for (const paragraph of unavailable.paragraphs) expect(html).toContain(paragraph);
  });

  it('loads nothing and runs nothing: the style is inline and a meta refresh asks again', () => {
    expect(html).not.toMatch(/<script|<link|src=/i);
    expect(html).toContain(`<style>${CSS}</style>`);
    expect(html).toContain('<meta http-equiv="refresh" content="5">');
  });

  it('is in the language it is given, written the way that language is', () => {
    const rtl = staticScreenDocument({
      markup,
      copy: arabicUnavailable,
      words: arabic,
      css: CSS,
      refreshSeconds: 5,
    });
    expect(rtl).toMatch(/^<!DOCTYPE html><html lang="ar" dir="rtl">/);
    expect(rtl).toContain(`<h1 class="es-heading">${arabicUnavailable.heading}</h1>`);
    expect(rtl).toContain(`<title>${arabicUnavailable.heading} – This service</title>`);
  });

  it('keeps a stylesheet from ending its <style> element', () => {
    const hostile = staticScreenDocument({
      markup,
      copy: unavailable,
      words: common,
      css: 'a{}</style><script>alert(1)</script>',
      refreshSeconds: 5,
    });
    expect(hostile).not.toContain('</style><script>');
    expect(hostile.match(/<\/style>/g)).toHaveLength(1);
  });
});

describe('haproxyErrorFile', () => {
  it.each([
    [502, 'Bad Gateway'],
    [503, 'Service Unavailable'],
    [504, 'Gateway Timeout'],
  ] as const)('is a whole %i answer that nothing may store, saying when to try again', (status, reason) => {
    const html = '<p>é</p>';
    expect(haproxyErrorFile(status, html)).toBe(
      [
        `HTTP/1.1 ${status} ${reason}`,
        'Content-Type: text/html; charset=utf-8',
        'Cache-Control: no-store',
        `Retry-After: ${RETRY_SECONDS}`,
        // Bytes, not characters: é is two.
        'Content-Length: 9',
        'Connection: close',
        '',
        html,
      ].join('\r\n'),
    );
  });

  it('refuses a page HAProxy would refuse, so the build fails instead of the balancer', () => {
    const html = 'x'.repeat(ERRORFILE_MAX_BYTES);
    expect(() => haproxyErrorFile(503, html)).toThrow(/HAProxy takes at most 15360/);
    const fits = 'x'.repeat(ERRORFILE_MAX_BYTES - 200);
    expect(() => haproxyErrorFile(503, fits)).not.toThrow();
  });

  it('takes a page of exactly 15 KiB, with its head, and refuses one byte more', () => {
    // The head's size for a body of five digits' length, as every body near the bound has.
    const head = Buffer.byteLength(haproxyErrorFile(503, 'x'.repeat(10_000))) - 10_000;
    const html = 'x'.repeat(ERRORFILE_MAX_BYTES - head);
    expect(Buffer.byteLength(haproxyErrorFile(503, html))).toBe(ERRORFILE_MAX_BYTES);
    expect(() => haproxyErrorFile(503, `${html}x`)).toThrow(
      `The 503 page is ${ERRORFILE_MAX_BYTES + 1} bytes; HAProxy takes at most ${ERRORFILE_MAX_BYTES}.`,
    );
  });

  it('covers the three statuses a balancer makes itself', () => {
    expect(BALANCER_STATUSES).toEqual([502, 503, 504]);
  });
});

describe('haproxyLanguageRules', () => {
  it("answers each language's visitors with its page while every instance is down", () => {
    expect(haproxyLanguageRules('/etc/haproxy/pages', ['fr', 'ar'], 'shell')).toEqual([
      '  acl every_instance_down nbsrv(shell) eq 0',
      '  http-request return errorfile /etc/haproxy/pages/fr/503.http if every_instance_down { req.fhdr(accept-language) -m reg -i ^\\s*fr([-;,\\s]|$) }',
      '  http-request return errorfile /etc/haproxy/pages/ar/503.http if every_instance_down { req.fhdr(accept-language) -m reg -i ^\\s*ar([-;,\\s]|$) }',
    ]);
  });

  it("names the shipped configuration's backend unless told another", () => {
    expect(haproxyLanguageRules('/p', [])).toEqual(['  acl every_instance_down nbsrv(app) eq 0']);
  });
});

describe('the static screen’s parts', () => {
  it('keeps text from ending its element early, whatever the case of the closing tag', () => {
    expect(inlineText('a</script>b</SCRIPT>', 'script')).toBe('a<\\/script>b<\\/script>');
    expect(inlineText('a{}</style>', 'style')).toBe('a{}<\\/style>');
    // Only the element it is told of: a style may hold the words </script>.
    expect(inlineText('</script>', 'style')).toBe('</script>');
  });

  it('escapes the four characters that matter in text and in a quoted attribute', () => {
    expect(escapeHtml(`Tom & "Jerry" <b>'s</b>`)).toBe("Tom &amp; &quot;Jerry&quot; &lt;b&gt;'s&lt;/b&gt;");
  });

  it('is the whole document, head written here, with no refresh or script unless asked for', () => {
    const body = markup(unavailable, common);
    expect(staticScreenDocument({ markup, copy: unavailable, words: common, css: CSS })).toBe(
      '<!DOCTYPE html><html lang="en" dir="ltr"><head>' +
        '<meta charset="utf-8"><meta name="viewport" content="width=device-width">' +
        '<meta name="robots" content="noindex">' +
        '<title>Sorry, the service is unavailable – This service</title>' +
        `<style>${CSS}</style>` +
        `</head><body><div id="__next">${body}</div>` +
        '</body></html>',
    );
    expect(
      staticScreenDocument({
        markup,
        copy: unavailable,
        words: common,
        css: CSS,
        refreshSeconds: 7,
        script: 'go()',
      }),
    ).toMatch(
      /<meta name="robots" content="noindex"><meta http-equiv="refresh" content="7"><title>[^]*<\/div><script>go\(\)<\/script><\/body><\/html>$/,
    );
  });
});
