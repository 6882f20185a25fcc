// _error as the server renders it: the screen for the status, in the language Accept-Language
// chose, with the answer varying on that header.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextPageContext } from 'next';
import { renderToStaticMarkup } from 'react-dom/server';
import ErrorPage from '../../../pages/_error';

function context(acceptLanguage: string | undefined, statusCode = 500) {
  const headers: Record<string, string | string[]> = {};
  const res = {
    statusCode,
    headersSent: false,
    getHeader: (name: string) => headers[name.toLowerCase()],
    setHeader: (name: string, value: string | string[]) => void (headers[name.toLowerCase()] = value),
  } as unknown as ServerResponse;
  const req = {
    method: 'GET',
    url: '/broken',
    headers: acceptLanguage === undefined ? {} : { 'accept-language': acceptLanguage },
  } as IncomingMessage;
  const ctx = { pathname: '/_error', query: {}, asPath: '/broken', req, res } as unknown as NextPageContext;
  return { ctx, headers };
}

// As a build with the default languages bakes them in (lib/config/build-time.ts).
beforeAll(() => {
  process.env.APP_SCREEN_LANGUAGES = 'en,fr,de,es,ar';
});
afterAll(() => {
  delete process.env.APP_SCREEN_LANGUAGES;
});

describe('_error on the server', () => {
  it.each([
    ['fr', 500, 'fr', 'Désolé, le service rencontre un problème', 'Réessayer'],
    ['de-AT, de;q=0.9', 500, 'de', 'Leider gibt es ein Problem mit dem Dienst', 'Erneut versuchen'],
    ['es', 400, 'es', 'Lo sentimos, esta dirección web o esta solicitud no se puede usar', null],
    ['ar-EG', 503, 'ar', 'عذرًا، هناك مشكلة في الخدمة', 'حاول مرة أخرى'],
    ['xx, *;q=0.1', 500, 'en', 'Sorry, there is a problem with the service', 'Try again'],
    [undefined, 414, 'en', 'Sorry, this web address or request cannot be used', null],
  ])('Accept-Language %p, status %p: the screen in %p', (header, status, language, heading, tryAgain) => {
    const { ctx, headers } = context(header, status);
    const props = ErrorPage.getInitialProps(ctx);
    expect(props.language).toBe(language);
    expect(headers.vary).toBe('Accept-Language');
    expect(headers['content-language']).toBe(language);
    const html = renderToStaticMarkup(<ErrorPage {...props} />);
    expect(html).toContain(`<h1 class="es-heading">${heading}</h1>`);
    expect(html).toContain(`lang="${language}" dir="${language === 'ar' ? 'rtl' : 'ltr'}"`);
    // The server's "Try again" is a link: it works without JavaScript.
    if (tryAgain) expect(html).toContain(`<a class="es-button" href="/broken">${tryAgain}</a>`);
  });

  it('adds to a Vary the answer already has, once', () => {
    const { ctx, headers } = context('fr');
    headers.vary = 'Accept-Encoding';
    ErrorPage.getInitialProps(ctx);
    ErrorPage.getInitialProps(ctx);
    expect(headers.vary).toBe('Accept-Encoding, Accept-Language');
  });
});
