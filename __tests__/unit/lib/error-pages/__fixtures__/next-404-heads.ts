// The heads of the 404.html Next prerendered from pages/404.tsx in real product builds
// (support/product-build.ts, Next 16.4.6, `next build --webpack`), each up to `<div id="__next">`,
// named by the next.config setting that built it. The unit tests of the build steps that read
// them (lib/error-pages/not-found-pages.ts) run over every one.

/** Where the page follows each head: the same in every build, the not-found screen in English. */
export const NOT_FOUND_BODY =
  '<div id="__next"><main class="es-main" data-screen="not-found" lang="en" dir="ltr">' +
  '<h1 class="es-heading">Page not found</h1></main></div></body></html>';

export const NOT_FOUND_HEADS: Record<string, string> = {
  // `trailingSlash: true` (the default build's head is the same, byte for byte).
  default:
    '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charSet="utf-8" data-next-head=""/>' +
    '<meta name="viewport" content="width=device-width" data-next-head=""/>' +
    '<title data-next-head="">Page not found – This service</title>' +
    '<meta name="robots" content="noindex" data-next-head=""/>' +
    '<link rel="preload" href="/_next/static/css/6c4b17e828095fc5.css" as="style"/>' +
    '<link rel="stylesheet" href="/_next/static/css/6c4b17e828095fc5.css" data-n-g=""/>' +
    '<noscript data-n-css=""></noscript></head><body>',
  // `deploymentId: 'deploy-one'`: data-dpl-id on <html>, `?dpl=` on every asset URL.
  'deployment-id':
    '<!DOCTYPE html><html lang="en" dir="ltr" data-dpl-id="deploy-one"><head>' +
    '<meta charSet="utf-8" data-next-head=""/>' +
    '<meta name="viewport" content="width=device-width" data-next-head=""/>' +
    '<title data-next-head="">Page not found – This service</title>' +
    '<meta name="robots" content="noindex" data-next-head=""/>' +
    '<link rel="preload" href="/_next/static/css/6c4b17e828095fc5.css?dpl=deploy-one" as="style"/>' +
    '<link rel="stylesheet" href="/_next/static/css/6c4b17e828095fc5.css?dpl=deploy-one" data-n-g=""/>' +
    '<noscript data-n-css=""></noscript></head><body>',
  // `assetPrefix: '/assets'`.
  'asset-prefix':
    '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charSet="utf-8" data-next-head=""/>' +
    '<meta name="viewport" content="width=device-width" data-next-head=""/>' +
    '<title data-next-head="">Page not found – This service</title>' +
    '<meta name="robots" content="noindex" data-next-head=""/>' +
    '<link rel="preload" href="/assets/_next/static/css/6c4b17e828095fc5.css" as="style"/>' +
    '<link rel="stylesheet" href="/assets/_next/static/css/6c4b17e828095fc5.css" data-n-g=""/>' +
    '<noscript data-n-css=""></noscript></head><body>',
  // `basePath: '/shop'`.
  'base-path':
    '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charSet="utf-8" data-next-head=""/>' +
    '<meta name="viewport" content="width=device-width" data-next-head=""/>' +
    '<title data-next-head="">Page not found – This service</title>' +
    '<meta name="robots" content="noindex" data-next-head=""/>' +
    '<link rel="preload" href="/shop/_next/static/css/6c4b17e828095fc5.css" as="style"/>' +
    '<link rel="stylesheet" href="/shop/_next/static/css/6c4b17e828095fc5.css" data-n-g=""/>' +
    '<noscript data-n-css=""></noscript></head><body>',
  // `i18n: { locales: ['en', 'fr'], defaultLocale: 'en' }`: the default locale's, server/pages/en/404.html.
  i18n:
    '<!DOCTYPE html><html lang="en" dir="ltr"><head><meta charSet="utf-8" data-next-head=""/>' +
    '<meta name="viewport" content="width=device-width" data-next-head=""/>' +
    '<title data-next-head="">Page not found – This service</title>' +
    '<meta name="robots" content="noindex" data-next-head=""/>' +
    '<link rel="preload" href="/_next/static/css/6c4b17e828095fc5.css" as="style"/>' +
    '<link rel="stylesheet" href="/_next/static/css/6c4b17e828095fc5.css" data-n-g=""/>' +
    '<noscript data-n-css=""></noscript></head><body>',
  // Not from a build: a product's _document with an attribute of its own, before Next's, and
  // `lang` after `dir` (React writes them in the order the element lists them).
  'own-attributes':
    '<!DOCTYPE html><html data-theme="light" dir="ltr" lang="en" data-dpl-id="deploy-one">' +
    '<head><meta charSet="utf-8" data-next-head=""/><title data-next-head="">' +
    'Page not found – This service</title>' +
    '<link rel="stylesheet" href="/_next/static/css/6c4b17e828095fc5.css?dpl=deploy-one" data-n-g=""/>' +
    '</head><body>',
};
