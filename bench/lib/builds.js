// The builds a benchmark run compares: this app (with and without SENTRY_DSN, and with its
// fixture pages for an error screen to audit) and a bare Next.js app made from the same
// node_modules in a temporary folder.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');
const WORK = path.join(ROOT, 'bench/.work');
const NEXT_BIN = require.resolve('next/dist/bin/next');

/**
 * @param {string} dir
 * @param {Record<string, string>} env
 */
function nextBuild(dir, env) {
  const result = spawnSync(process.execPath, [NEXT_BIN, 'build', '--webpack'], {
    cwd: dir,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0)
    throw new Error(`next build in ${dir} failed:\n${result.stdout}\n${result.stderr}`);
}

/**
 * This app, built as users build it (`npm run build`: the compiled server, then `next build`).
 * @param {string} distDir  relative to the repository
 * @param {Record<string, string>} [env]
 */
function buildApp(distDir, env = {}) {
  const result = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: ROOT,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: distDir, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`npm run build failed:\n${result.stdout}\n${result.stderr}`);
  return path.join(ROOT, distDir);
}

/**
 * A bare Next.js app of the same versions: default _app, a plain 404, one empty API route to
 * compare the health route with, and one page rendered per request. Built with webpack, as this
 * app is.
 * @returns {string} its folder
 */
function buildBareApp() {
  const dir = path.join(WORK, 'bare');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'pages/api'), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'bare', private: true }));
  fs.writeFileSync(path.join(dir, 'next.config.js'), 'module.exports = {};\n');
  fs.writeFileSync(
    path.join(dir, 'pages/404.js'),
    'export default function NotFound() {\n  return <h1>404 - Page Not Found</h1>;\n}\n',
  );
  // A page rendered per request, doing what the fixture page `/__fixtures__/slow?ms=0` does: the
  // product page of `npm run bench:soak`.
  fs.writeFileSync(
    path.join(dir, 'pages/product.js'),
    [
      'export async function getServerSideProps({ query }) {',
      '  const waited = Math.min(Number(query.ms) || 0, 10000);',
      '  await new Promise((resolve) => setTimeout(resolve, waited));',
      '  return { props: { waited } };',
      '}',
      'export default function Product({ waited }) {',
      '  return <p>Answered after {waited} ms.</p>;',
      '}',
      '',
    ].join('\n'),
  );
  fs.writeFileSync(
    path.join(dir, 'pages/api/empty.js'),
    "export default function handler(req, res) {\n  res.status(200).json({ status: 'pass' });\n}\n",
  );
  nextBuild(dir, {});
  return dir;
}

module.exports = { ROOT, WORK, NEXT_BIN, buildApp, buildBareApp };
