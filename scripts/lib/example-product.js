// Laying the example product (examples/product/) over a copy of the shell, as a team's files sit in
// the shell's own tree. One definition for the suites' product builds (__tests__/support/product-build.ts)
// and for `npm run test:with-product` (scripts/test-with-product.js).
const { cpSync, existsSync, renameSync } = require('node:fs');
const path = require('node:path');

const EXAMPLE_PRODUCT = path.join(__dirname, '../../examples/product');
/** Where the shell's next.config.ts goes, whole, beneath the product's. */
const SHELL_CONFIG = 'shell.next.config.ts';

/**
 * Lays the example product over the shell in `dir`: each file at its own path (the shell's
 * lib/health/dependencies.ts replaced by the product's), the shell's next.config.ts kept beneath
 * the product's as shell.next.config.ts. `proxy: false` leaves out its proxy.ts. Over a folder that
 * holds the product already (the suites run inside `npm run test:with-product`'s copy) only the
 * proxy is added, if asked for.
 * @param {string} dir
 * @param {{ proxy: boolean }} options
 */
function layExampleProduct(dir, { proxy }) {
  const proxyFile = path.join(EXAMPLE_PRODUCT, 'proxy.ts');
  if (!existsSync(path.join(dir, SHELL_CONFIG))) {
    renameSync(path.join(dir, 'next.config.ts'), path.join(dir, SHELL_CONFIG));
    cpSync(EXAMPLE_PRODUCT, dir, {
      recursive: true,
      filter: (source) => source !== path.join(EXAMPLE_PRODUCT, 'README.md') && source !== proxyFile,
    });
  }
  if (proxy) cpSync(proxyFile, path.join(dir, 'proxy.ts'));
}

module.exports = { EXAMPLE_PRODUCT, SHELL_CONFIG, layExampleProduct };
