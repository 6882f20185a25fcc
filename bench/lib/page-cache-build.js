// The builds `npm run bench:page-cache` compares: one copy of the shell with a product page added
// (bench/page-cache/post.tsx as pages/post/[slug].tsx, as a team adds one), built once as
// `npm run build` builds it, then copied three times, so the three servers run the same build and
// differ only in their page cache. The server with Next's own cache starts with NEXT_OWN_CACHE
// preloaded, which hands Next its own FileSystemCache before the shell's server would hand it the
// shell's handler (as __tests__/e2e/page-cache.test.ts starts its own-cache pods).
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./builds.js');
const { buildProductCopies } = require('./product-copies.js');

/** For NODE_OPTIONS=--require: Next's own page cache in the shell's server (the file says how). */
const NEXT_OWN_CACHE = path.join(ROOT, 'bench/page-cache/next-own-cache.js');

/**
 * Builds the product copy and its three variants; returns their folders.
 * @returns {{ nextOwn: string, shellStore: string, shellDisk: string }}
 */
function buildPageCacheVariants() {
  const { nextOwn, shellStore, shellDisk } = buildProductCopies(
    'app-shell-bench-page-cache',
    { 'post/[slug].tsx': 'page-cache/post.tsx' },
    ['nextOwn', 'shellStore', 'shellDisk'],
  );
  const file = path.join(nextOwn, '.next/required-server-files.json');
  if (typeof JSON.parse(fs.readFileSync(file, 'utf8')).config.cacheHandler === 'string')
    throw new Error(`${file} names a cacheHandler: the shell's next.config changed`);
  return { nextOwn, shellStore, shellDisk };
}

module.exports = { buildPageCacheVariants, NEXT_OWN_CACHE };
