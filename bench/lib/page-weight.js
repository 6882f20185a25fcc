// First-load JS: the gzip bytes of the scripts a page's HTML makes a modern browser load (leaving
// out `nomodule` polyfills, which modern browsers skip), read from the build's own manifest.
const fs = require('node:fs');
const path = require('node:path');
const zlib = require('node:zlib');

/** @param {string} file */
function gzipBytes(file) {
  return zlib.gzipSync(fs.readFileSync(file), { level: 9 }).length;
}

/**
 * @param {string} distDir  absolute path of a build (`.next`)
 * @param {string} page  `/404`, `/_error`, …
 * @returns {{ bytes: number, files: string[] }}
 */
function firstLoadJs(distDir, page) {
  const manifest = JSON.parse(fs.readFileSync(path.join(distDir, 'build-manifest.json'), 'utf8'));
  const files = [
    ...new Set([...manifest.pages['/_app'], ...(manifest.pages[page] ?? []), ...manifest.lowPriorityFiles]),
  ].filter((file) => file.endsWith('.js') && !manifest.polyfillFiles.includes(file));
  return { bytes: files.reduce((sum, file) => sum + gzipBytes(path.join(distDir, file)), 0), files };
}

/**
 * Next's runtime, which every page of every Pages Router build loads: React and Next's client
 * (`framework`, `main`) and webpack's runtime (`webpack`), named as Next names them.
 */
const NEXT_RUNTIME = /^static\/chunks\/(webpack|framework|main)-[0-9a-f]+\.js$/;

/**
 * A page's first-load JS in three parts, so that each is compared with what can change it:
 * - `own`: the app's own files for the page, `_app`'s chunk and the page's (and any chunk split off
 *   them). For the shell's pages this is the shell's code, whatever a product adds beside it: Next
 *   keeps `_app` whole, and a product page's code lands in that page's chunks, never in these.
 * - `runtime`: React, Next's client and webpack's runtime, which every page loads: Next's, but
 *   what they keep of React and Next follows what every page of the build uses, a product's too.
 * - `pageSet`: the page manifests Next loads after the page (`lowPriorityFiles`), which name every
 *   page the build has: each page a product adds makes them grow, on every page.
 * @param {string} distDir  absolute path of a build (`.next`)
 * @param {string} page
 * @returns {Record<'own' | 'runtime' | 'pageSet', { bytes: number, files: string[] }>}
 */
function firstLoadParts(distDir, page) {
  const manifest = JSON.parse(fs.readFileSync(path.join(distDir, 'build-manifest.json'), 'utf8'));
  /** @type {Record<'own' | 'runtime' | 'pageSet', { bytes: number, files: string[] }>} */
  const parts = {
    own: { bytes: 0, files: [] },
    runtime: { bytes: 0, files: [] },
    pageSet: { bytes: 0, files: [] },
  };
  for (const file of firstLoadJs(distDir, page).files) {
    const part = manifest.lowPriorityFiles.includes(file)
      ? parts.pageSet
      : NEXT_RUNTIME.test(file)
        ? parts.runtime
        : parts.own;
    part.files.push(file);
    part.bytes += gzipBytes(path.join(distDir, file));
  }
  return parts;
}

/**
 * Whether a build's pages are all among `routes` (the shell's own): no product beside the shell.
 * @param {string} distDir
 * @param {string[]} routes
 */
function holdsOnly(distDir, routes) {
  const pages = JSON.parse(fs.readFileSync(path.join(distDir, 'server/pages-manifest.json'), 'utf8'));
  return Object.keys(pages).every((page) => routes.includes(page));
}

/**
 * The first-load JS of one of the shell's pages, as the budget weighs it. With the shell alone in
 * the build (`shellAlone`), the whole figure. With a product's pages beside it, Next's runtime and
 * the page manifests are the product's as much as the shell's (they grow with every page, and with
 * every export of React or Next a page uses), so the page's own files are weighed with what those
 * two weigh in the shell alone (`alone`, recorded in bench/page-weight-budget.json).
 * @param {string} distDir
 * @param {string} page
 * @param {{ shellAlone: boolean, alone: { runtime: number, pageSet: number } }} options
 */
function shellFirstLoad(distDir, page, { shellAlone, alone }) {
  if (shellAlone) return firstLoadJs(distDir, page).bytes;
  return firstLoadParts(distDir, page).own.bytes + alone.runtime + alone.pageSet;
}

/**
 * The same figure from a prerendered page's HTML, to check the manifest reading against.
 * @param {string} distDir
 * @param {string} htmlFile  e.g. `server/pages/404.html`
 */
function firstLoadJsFromHtml(distDir, htmlFile) {
  const html = fs.readFileSync(path.join(distDir, htmlFile), 'utf8');
  let bytes = 0;
  for (const match of html.matchAll(/<script([^>]*)><\/script>/g)) {
    const attributes = match[1] ?? '';
    const src = attributes.match(/src="\/_next\/([^"]+)"/)?.[1];
    if (src && !/noModule/i.test(attributes)) bytes += gzipBytes(path.join(distDir, src));
  }
  return bytes;
}

/**
 * A lazily loaded Sentry SDK file, if the build has one: `errors` (errors and sessions, what every
 * visitor loads) or `tracing` (the same with tracing, what a sampled visitor loads instead).
 * @param {string} distDir
 * @param {'errors' | 'tracing'} [kind]
 */
function sdkChunk(distDir, kind = 'errors') {
  const chunks = path.join(distDir, 'static/chunks');
  const name = kind === 'tracing' ? /^reporting-tracing-.+\.js$/ : /^reporting-(?!tracing-).+\.js$/;
  const file = fs.readdirSync(chunks).find((entry) => name.test(entry));
  return file ? { file, bytes: gzipBytes(path.join(chunks, file)) } : null;
}

/**
 * What a visitor downloads for the 404 page, gzip: the prerendered HTML, its stylesheets and its
 * scripts, as its HTML names them.
 * @param {string} distDir
 * @returns {{ html: number, css: number, js: number, total: number }}
 */
function notFoundTransfer(distDir) {
  const htmlFile = path.join(distDir, 'server/pages/404.html');
  const source = fs.readFileSync(htmlFile, 'utf8');
  const html = gzipBytes(htmlFile);
  // Each stylesheet once: the HTML names it twice (preload, then stylesheet), the browser fetches it once.
  const stylesheets = new Set(
    [...source.matchAll(/<link[^>]+href="\/_next\/([^"]+\.css)"/g)].map((match) => match[1] ?? ''),
  );
  let css = 0;
  for (const file of stylesheets) css += gzipBytes(path.join(distDir, file));
  const js = firstLoadJsFromHtml(distDir, 'server/pages/404.html');
  return { html, css, js, total: html + css + js };
}

/**
 * What a page's first-load JS may weigh over bare Next's (bench/page-weight-budget.json): the
 * allowance and each feature's own line, added up in one place for `npm test` and `npm run bench`.
 * @param {{ allowance: number, fleetRecovery: number, serviceWorker: number, screenLanguages: number }} budget
 */
function firstLoadAllowance(budget) {
  return budget.allowance + budget.fleetRecovery + budget.serviceWorker + budget.screenLanguages;
}

module.exports = {
  firstLoadAllowance,
  firstLoadJs,
  firstLoadParts,
  holdsOnly,
  shellFirstLoad,
  firstLoadJsFromHtml,
  notFoundTransfer,
  sdkChunk,
};
