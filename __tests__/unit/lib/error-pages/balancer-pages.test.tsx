import { common as arabic } from '../../../../components/error-screen/copy/ar/common';
import { unavailable as arabicUnavailable } from '../../../../components/error-screen/copy/ar/unavailable';
import { common } from '../../../../components/error-screen/copy/en/common';
import { unavailable } from '../../../../components/error-screen/copy/en/unavailable';
import {
  BALANCER_STATUSES,
  ERRORFILE_MAX_BYTES,
  haproxyErrorFile,
  RETRY_SECONDS,
} from '../../../../lib/error-pages/balancer-pages';
import { staticScreenDocument } from '../../../../lib/error-pages/static-screen';

const CSS = '.es-main{max-width:40rem}';

describe('staticScreenDocument', () => {
  const html = staticScreenDocument({ copy: unavailable, words: common, css: CSS, refreshSeconds: 5 });

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
    const rtl = staticScreenDocument({ copy: arabicUnavailable, words: arabic, css: CSS, refreshSeconds: 5 });
    expect(rtl).toMatch(/^<!DOCTYPE html><html lang="ar" dir="rtl">/);
    expect(rtl).toContain(`<h1 class="es-heading">${arabicUnavailable.heading}</h1>`);
    expect(rtl).toContain(`<title>${arabicUnavailable.heading} – This service</title>`);
  });

  it('keeps a stylesheet from ending its <style> element', () => {
    const hostile = staticScreenDocument({
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

  it('covers the three statuses a balancer makes itself', () => {
    expect(BALANCER_STATUSES).toEqual([502, 503, 504]);
  });
});
