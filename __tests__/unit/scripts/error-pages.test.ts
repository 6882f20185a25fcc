import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildStylesheet, prerenderedNotFound, writeErrorPages } from '../../../scripts/error-pages';
import { fakeBuild } from '../../support/fake-build';

let root: string;
const saved = { ...process.env };

beforeEach(() => {
  root = fakeBuild('error-pages-', {
    APP_SERVICE_NAME: 'Apply for a bar licence',
    APP_CONTACT_HREF: 'mailto:help@example.org',
    APP_CONTACT_LABEL: 'email the licensing team',
  });
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
  process.env = { ...saved };
});

it('writes "Page not found" in each language offered, from the one Next prerendered', async () => {
  const line = await writeErrorPages(root, {});
  expect(line).toMatch(
    /^"Page not found" in \.next\/error-pages\/<language>\/404\.html \(bytes: en \d+, fr \d+, de \d+, es \d+, ar \d+; no JavaScript\)\.$/m,
  );
  const french = readFileSync(path.join(root, '.next/error-pages/fr/404.html'), 'utf8');
  expect(french).toMatch(/^<!DOCTYPE html><html lang="fr" dir="ltr">/);
  expect(french).toContain('<title data-next-head="">Page introuvable – Apply for a bar licence</title>');
  expect(french).toContain('<link rel="stylesheet" href="/_next/static/css/app.css"/>');
  expect(french).toContain('<a href="mailto:help@example.org">email the licensing team</a>');
  const arabic = readFileSync(path.join(root, '.next/error-pages/ar/404.html'), 'utf8');
  expect(arabic).toMatch(/^<!DOCTYPE html><html lang="ar" dir="rtl">/);
});

it('writes only the languages the build offers', async () => {
  process.env.APP_SCREEN_LANGUAGES = 'de,en';
  writeFileSync(
    path.join(root, '.next/required-server-files.json'),
    JSON.stringify({ config: { env: { APP_SCREEN_LANGUAGES: 'de,en', APP_SCREEN_DEFAULT_LANGUAGE: 'de' } } }),
  );
  const line = await writeErrorPages(root, {});
  expect(line).toMatch(/\(bytes: de \d+, en \d+; no JavaScript\)/);
  expect(line).toMatch(/Balancer pages: 502, 503, 504 in \.next\/error-pages\/ \(de, /);
  expect(readFileSync(path.join(root, '.next/error-pages/503.html'), 'utf8')).toMatch(/<html lang="de"/);
});

it('writes the three balancer pages with the build’s own stylesheet and settings, in each language', async () => {
  const line = await writeErrorPages(root, {});
  expect(line).toMatch(
    /^Balancer pages: 502, 503, 504 in \.next\/error-pages\/ \(en, \d+ bytes each, no JavaScript\), and in each language's folder\.$/m,
  );
  expect(readFileSync(path.join(root, '.next/error-pages/es/503.html'), 'utf8')).toContain(
    'Lo sentimos, el servicio no está disponible',
  );
  for (const status of [502, 503, 504]) {
    const html = readFileSync(path.join(root, '.next/error-pages', `${status}.html`), 'utf8');
    expect(html).toContain('<style>.es-main{color:#0b0c0c}</style>');
    expect(html).toContain('<title>Sorry, the service is unavailable – Apply for a bar licence</title>');
    expect(html).toContain('<a href="mailto:help@example.org">email the licensing team</a>');
    const answer = readFileSync(path.join(root, '.next/error-pages', `${status}.http`), 'utf8');
    expect(answer.endsWith(html)).toBe(true);
  }
});

it('fails when the build has no stylesheet, rather than write unstyled pages', async () => {
  writeFileSync(path.join(root, '.next/build-manifest.json'), JSON.stringify({ pages: { '/_app': [] } }));
  await expect(writeErrorPages(root, {})).rejects.toThrow(/no stylesheet for \/_app/);
});

it('fails as clearly for a build whose manifest has no /_app at all', async () => {
  writeFileSync(path.join(root, '.next/build-manifest.json'), JSON.stringify({ pages: {} }));
  await expect(writeErrorPages(root, {})).rejects.toThrow(
    'no stylesheet for /_app in .next/build-manifest.json',
  );
});

it('takes every stylesheet of /_app, one after the other', () => {
  writeFileSync(path.join(root, '.next/static/css/more.css'), '.b{}');
  writeFileSync(
    path.join(root, '.next/build-manifest.json'),
    JSON.stringify({
      pages: { '/_app': ['static/css/app.css', 'static/chunks/app.js', 'static/css/more.css'] },
    }),
  );
  expect(buildStylesheet(root, '.next')).toBe('.es-main{color:#0b0c0c}\n.b{}');
});

describe("where Next prerendered the 404 page (Next's i18n puts it under the default locale)", () => {
  it('is server/pages/404.html without i18n, or without a routes manifest to say', () => {
    expect(prerenderedNotFound(root, '.next')).toBe('server/pages/404.html');
    writeFileSync(path.join(root, '.next/routes-manifest.json'), JSON.stringify({ i18n: null }));
    expect(prerenderedNotFound(root, '.next')).toBe('server/pages/404.html');
  });

  it("is under the default locale's folder with i18n", () => {
    writeFileSync(
      path.join(root, '.next/routes-manifest.json'),
      JSON.stringify({ i18n: { locales: ['en-GB', 'fr'], defaultLocale: 'en-GB' } }),
    );
    expect(prerenderedNotFound(root, '.next')).toBe('server/pages/en-GB/404.html');
  });
});
