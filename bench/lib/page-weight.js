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

module.exports = { firstLoadAllowance, firstLoadJs, firstLoadJsFromHtml, notFoundTransfer, sdkChunk };
