// Which files of pages/ become routes, asked of Next's own matcher with the extensions a build
// routes: the route guard's unit test (unit/pages/route-files.test.ts) and its check of the built
// manifests (e2e/route-table.test.ts) read the tree the same way. The guard knows the shell's routes
// and its fixtures, never a product's: a product page is any other route, and needs no list.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { collectPagesFiles, getPageFromPath } from 'next/dist/build/route-discovery';
import { createValidFileMatcher } from 'next/dist/server/lib/find-page-file';
import { PHASE_PRODUCTION_BUILD } from 'next/constants';
import type { NextConfig } from 'next';
import { ROOT } from './paths';

/** The shell's own routes: its pages, and its three health routes (overall, live and ready). */
export const SHELL_ROUTES = [
  '/404',
  '/_app',
  '/_document',
  '/_error',
  '/api/health',
  '/api/health/live',
  '/api/health/ready',
];

export const PAGES_DIR = path.join(ROOT, 'pages');

/**
 * A fixture: a page that throws (or misbehaves) on purpose for the browser tests, which only the
 * fixture builds may route. Any file under a `__fixtures__` folder, or named `*.fixture.*`.
 */
export function isFixtureFile(file: string): boolean {
  return /(^|[\\/])__fixtures__[\\/]/.test(file) || /\.fixture\.[^\\/]+$/.test(file);
}

/**
 * The root next.config (a product's own, if it wraps the shell's) as `next build` calls it, read
 * afresh with APP_SHELL_FIXTURES as given: the shell's reads it once, when it is loaded.
 */
export function buildConfig(fixtures: boolean): NextConfig {
  const before = process.env.APP_SHELL_FIXTURES;
  if (fixtures) process.env.APP_SHELL_FIXTURES = '1';
  else delete process.env.APP_SHELL_FIXTURES;
  try {
    let config: NextConfig | undefined;
    jest.isolateModules(() => {
      // (A require: the module must be loaded inside the isolated registry, with the variable set.)
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const nextConfig = require(path.join(ROOT, 'next.config')) as {
        default: (phase: string) => NextConfig;
      };
      config = nextConfig.default(PHASE_PRODUCTION_BUILD);
    });
    return config!;
  } finally {
    if (before === undefined) delete process.env.APP_SHELL_FIXTURES;
    else process.env.APP_SHELL_FIXTURES = before;
  }
}

/** The page extensions of the production build, or of the fixture builds. */
export function pageExtensions(fixtures: boolean): string[] {
  return buildConfig(fixtures).pageExtensions ?? ['tsx', 'ts', 'jsx', 'js'];
}

/** The files under pages/ a build with these extensions routes, as Next finds them (relative, `/`-led). */
export function pageFiles(extensions: string[], dir = PAGES_DIR): Promise<string[]> {
  return collectPagesFiles(dir, createValidFileMatcher(extensions, undefined));
}

/** Whether a build with these extensions routes the file (a path below pages/). */
export function isRouted(file: string, extensions: string[]): boolean {
  return createValidFileMatcher(extensions, undefined).isPageFile(file);
}

/** The route a page file becomes (`/__fixtures__/fleet/index.fixture.jsx` → `/__fixtures__/fleet`). */
export function routeOf(file: string, extensions: string[]): string {
  return getPageFromPath(file, extensions);
}

/**
 * Whether a build routes `pathname` to a page or API route of its own (a product's, say), by the
 * routes manifest's own patterns: a test that needs a path no page answers leaves those out.
 */
export function isRouteOfBuild(distDir: string, pathname: string): boolean {
  const manifest = JSON.parse(readFileSync(path.resolve(ROOT, distDir, 'routes-manifest.json'), 'utf8')) as {
    staticRoutes: { regex: string }[];
    dynamicRoutes: { regex: string }[];
  };
  return [...manifest.staticRoutes, ...manifest.dynamicRoutes].some(({ regex }) =>
    new RegExp(regex).test(pathname),
  );
}
