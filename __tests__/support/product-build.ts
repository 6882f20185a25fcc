// The shell as a product team uses it: a copy of this repository with product pages, API routes and
// public files of ordinary awkward names added, built in one of the Next configurations a team may
// set. The differential test (e2e/next-parity.test.ts) serves each build with the shell and with bare
// `next start`, and compares where every request ends.
import { spawn, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerProcess } from '../../scripts/lib/server-process';
import { ROOT } from './paths';
import { layExampleProduct, SHELL_CONFIG } from '../../scripts/lib/example-product';

/** One configuration: its name, and the lines of next.config it adds (a TypeScript object body). */
export interface ProductConfig {
  name: string;
  /** Added to the shell's next.config object, e.g. `trailingSlash: true,`. */
  config: string;
  /** Paths every request of the corpus is also asked under (`/shop`, `/fr`), '' for none. */
  prefixes: string[];
  /** Where the build serves the readiness probe, if not at `/api/health/ready`. */
  readyPath?: string;
  /** A root proxy (Next 16's middleware) for the build. */
  proxy?: boolean;
}

/** The configurations next-parity.test.ts compares, built before any test (support/builds.ts). */
export const PARITY_PRODUCTS: ProductConfig[] = [
  { name: 'default', config: '', prefixes: [''] },
  // With assets asked under a path of their own (a CDN pulling from the app asks the same paths).
  {
    name: 'trailing-slash',
    config: "trailingSlash: true, assetPrefix: '/assets',",
    prefixes: ['', '/assets'],
    readyPath: '/api/health/ready/',
  },
  {
    name: 'skip-trailing-slash-redirect',
    config: [
      'skipTrailingSlashRedirect: true,',
      "async rewrites() { return [{ source: '/old-blog/:slug', destination: '/blog/:slug' }]; },",
      "async redirects() { return [{ source: '/moved', destination: '/about', permanent: true }]; },",
    ].join(' '),
    prefixes: [''],
  },
  {
    name: 'base-path',
    config: "basePath: '/shop',",
    prefixes: ['/shop', ''],
    readyPath: '/shop/api/health/ready',
  },
  { name: 'i18n', config: "i18n: { locales: ['en', 'fr'], defaultLocale: 'en' },", prefixes: ['', '/fr'] },
  // The whole example product, its proxy.ts included: the build the product's own tests run against.
  { name: 'example', config: '', prefixes: [''], proxy: true },
  // Next's skew protection: `?dpl=deploy-one` on every asset URL, `data-dpl-id` on <html>, and Next's
  // one constant build id for every such build (the fleet tells them apart by the deployment id).
  { name: 'deployment-id', config: "deploymentId: 'deploy-one',", prefixes: [''] },
];

/**
 * The next release of `deployment-id`, for the rolling update between two deploymentId builds
 * (e2e/fleet-deployments.test.ts): its own deployment id, and every file's hash salted, so each
 * chunk's name differs from the first's as two releases' do. Built before the tests with them.
 */
export const NEXT_DEPLOYMENT: ProductConfig = {
  name: 'deployment-two',
  config: "deploymentId: 'deploy-two', outputHashSalt: 'deploy-two',",
  prefixes: [''],
};

/** Public files, by path below public/; the shell's own (favicon.ico, robots.txt…) are there too. */
export const PUBLIC_FILES = [
  'files/a b.txt',
  'files/é.txt',
  'files/a;b.txt',
  'files/a+b.txt',
  'files/100%.txt',
  'files/LICENSE',
  '.hidden',
  '.well-known/apple-app-site-association',
  'linked.txt',
  'linked-folder/inside.txt',
];

/**
 * Copies the shell (its compiled server from this repository's dist/ included, which `npm run
 * build` made), adds the product, and builds it with `next build` and the shell's build steps.
 * Returns the folder; the caller removes it.
 */
export function buildProduct(product: ProductConfig): string {
  const { dir, env, steps } = prepareProduct(product);
  for (const [script, ...args] of steps) {
    const result = spawnSync(process.execPath, [script as string, ...args], {
      cwd: dir,
      env,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    if (result.status !== 0)
      throw new Error(
        `${script} ${args.join(' ')} failed for ${product.name}:\n${result.stdout}\n${result.stderr}`,
      );
  }
  return dir;
}

/** The same, without waiting: for the builds made side by side before any test. */
export async function buildProductAsync(product: ProductConfig): Promise<string> {
  const { dir, env, steps } = prepareProduct(product);
  for (const [script, ...args] of steps) {
    const output = await new Promise<{ status: number | null; text: string }>((resolve) => {
      const child = spawn(process.execPath, [script as string, ...args], { cwd: dir, env });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      child.on('error', (error) => resolve({ status: -1, text: error.message }));
      child.on('close', (status) => resolve({ status, text }));
    });
    if (output.status !== 0)
      throw new Error(`${script} ${args.join(' ')} failed for ${product.name}:\n${output.text}`);
  }
  return dir;
}

/**
 * Bare `next start` on a product's build, on loopback: what the shell's answers are compared with.
 * Ready at the first 200 of `readyPath` (the product's home page, or its base path).
 */
export function startBareNext(dir: string, readyPath = '/') {
  return startServerProcess({
    command: process.execPath,
    args: [path.join(dir, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', '{port}'],
    cwd: dir,
    env: { NODE_ENV: 'production' },
    readyPath,
    readyStatus: 200,
    timeoutMs: 30_000,
  });
}

/** Where the set-up built each product in this run (a JSON map in the environment). */
export const PRODUCTS_BUILT = 'APP_SHELL_PRODUCTS_BUILT';

/** The products built before the tests in this run: each one's folder, by name. */
export function productsBuilt(): Record<string, string> {
  return JSON.parse(process.env[PRODUCTS_BUILT] ?? '{}') as Record<string, string>;
}

/** The folder of `name` built before the tests in this run, if it was. */
export function prebuiltProduct(name: string): string | undefined {
  return productsBuilt()[name];
}

/** The product copied and configured, not yet built: its folder, and the build's env and steps. */
function prepareProduct(product: ProductConfig) {
  const dir = mkdtempSync(path.join(tmpdir(), `app-shell-${product.name}-`));
  for (const entry of [
    'pages',
    'components',
    'lib',
    'public',
    'scripts',
    'dist',
    'instrumentation.ts',
    'next.config.ts',
    SHELL_CONFIG,
    'tsconfig.json',
    'package.json',
  ])
    if (existsSync(path.join(ROOT, entry)))
      cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true, verbatimSymlinks: true });
  rmSync(path.join(dir, 'pages/__fixtures__'), { recursive: true, force: true });
  rmSync(path.join(dir, 'pages/api/__fixtures__'), { recursive: true, force: true });
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  layExampleProduct(dir, { proxy: product.proxy === true });
  for (const file of PUBLIC_FILES) {
    if (file.startsWith('linked')) continue;
    mkdirSync(path.dirname(path.join(dir, 'public', file)), { recursive: true });
    writeFileSync(path.join(dir, 'public', file), `${file}\n`);
  }
  // Symbolic links in public/, to a file and to a folder kept outside it.
  mkdirSync(path.join(dir, 'assets/folder'), { recursive: true });
  writeFileSync(path.join(dir, 'assets/linked.txt'), 'linked\n');
  writeFileSync(path.join(dir, 'assets/folder/inside.txt'), 'inside\n');
  symlinkSync('../assets/linked.txt', path.join(dir, 'public/linked.txt'));
  symlinkSync('../assets/folder', path.join(dir, 'public/linked-folder'), 'dir');
  // The root static/ folder Next still serves.
  mkdirSync(path.join(dir, 'static'));
  writeFileSync(path.join(dir, 'static/legacy.txt'), 'legacy\n');
  // The product's next.config (the shell's beneath it), with the configuration's settings on top.
  renameSync(path.join(dir, 'next.config.ts'), path.join(dir, 'product.next.config.ts'));
  writeFileSync(
    path.join(dir, 'next.config.ts'),
    [
      'import type { NextConfig } from "next";',
      'import productConfig from "./product.next.config";',
      'export default function nextConfig(phase: string): NextConfig {',
      '  return {',
      '    ...productConfig(phase),',
      // The product's types are not what is tested here; the shell's are checked by its own build.
      '    typescript: { ignoreBuildErrors: true },',
      `    ${product.config}`,
      '  };',
      '}',
      '',
    ].join('\n'),
  );
  // Served with `next start` and the shell's server, never as the standalone folder: no file traces.
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', NEXT_DIST_DIR: '.next', NEXT_TRACES: 'off' };
  const steps = [
    ['node_modules/next/dist/bin/next', 'build', '--webpack'],
    ['dist/scripts/source-maps.js'],
    ['dist/scripts/carry-static.js'],
    ['dist/scripts/error-pages.js'],
    ['dist/scripts/service-worker.js'],
  ];
  return { dir, env, steps };
}
