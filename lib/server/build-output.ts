// The production server reads back what `next build` resolved: its Next config, and in it the
// values baked into the bundles (release, reporting DSN and tunnel path). Next gets that config as
// it is, so a start never runs next.config.ts (no compiler at start, in the image or anywhere), and
// lib/config/build-values.ts answers the same values here as inside the bundles.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildTimeEnv } from '../config/build-time';
import type { BuildEnv } from '../config/build-values';

/**
 * The one folder of a build (`<dist>/sourcemaps/{client,server}/`) its source maps are kept in,
 * outside everything the server serves: scripts/source-maps.ts moves them there, and the server
 * reads its own from there to log a server error's stack as it reads in the sources.
 */
export const MAPS_FOLDER = 'sourcemaps';

/** The part of the build's resolved config read here. */
export interface BuiltConfig {
  env?: Partial<BuildEnv>;
  /** Whether Next gzips its answers (next.config's `compress`, on unless set false). */
  compress?: boolean;
  basePath?: string;
  trailingSlash?: boolean;
  /** Next's skew protection: the build's name for the fleet, where set (lib/fleet/deployment.ts). */
  deploymentId?: string;
  /** Where pages ask for build files (a path, or a CDN's URL): lib/config/asset-urls.ts. */
  assetPrefix?: string;
  supportsImmutableAssets?: boolean;
  /** A page cache handler a product named (next.config's `cacheHandler`); the shell names none. */
  cacheHandler?: string;
}

/**
 * Whether the server hands Next the shell's page cache handler (lib/page-cache/handler.ts): unless
 * the product named a handler of its own in next.config, which Next then uses instead.
 */
export function usesShellPageCache(config: BuiltConfig | null): boolean {
  return typeof config?.cacheHandler !== 'string';
}

/**
 * Where Next serves a route file's path in this build (`/api/health` → `/shop/api/health/` with
 * `basePath: '/shop'` and `trailingSlash: true`): an answer given before Next is given there only.
 */
export function servedPath(root: string, distDir: string): (routePath: string) => string {
  const config = parseBuiltConfig(builtConfigText(root, distDir));
  const basePath = config?.basePath ?? '';
  const slash = config?.trailingSlash === true ? '/' : '';
  return (routePath) => `${basePath}${routePath}${slash}`;
}

/** Whether the build's Next gzips its answers, so the server's own answers can do as it does. */
export function nextCompresses(root: string, distDir: string): boolean {
  return parseBuiltConfig(builtConfigText(root, distDir))?.compress !== false;
}

/**
 * The build's resolved Next config as JSON text, from the build folder's
 * required-server-files.json (in a checkout and in the image's standalone folder alike); null
 * before the first build.
 */
export function builtConfigText(root: string, distDir: string): string | null {
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, distDir, 'required-server-files.json'), 'utf8'));
    return manifest.config ? JSON.stringify(manifest.config) : null;
  } catch {
    return null; // no build yet: Next itself says so, clearly, when it prepares
  }
}

export function parseBuiltConfig(text: string | null): BuiltConfig | null {
  try {
    return text === null ? null : (JSON.parse(text) as BuiltConfig);
  } catch {
    return null;
  }
}

/**
 * Copies the build's values into process.env and hands Next the build's config, as Next's own
 * standalone server.js does. `next dev` builds as it goes, from the current environment, so there
 * the values are computed (and checked: a bad value throws one line) instead.
 */
export function adoptBuildValues({
  root,
  dev,
  distDir,
}: {
  root: string;
  dev: boolean;
  distDir: string;
}): void {
  const text = dev ? null : builtConfigText(root, distDir);
  // Stryker disable next-line BooleanLiteral: `npm run dev`'s path, run by its own e2e test (dev-server.test.ts).
  const values = dev ? buildTimeEnv(process.env, { dev: true, root }) : (parseBuiltConfig(text)?.env ?? {});
  for (const [name, value] of Object.entries(values)) {
    if (name.startsWith('APP_') && typeof value === 'string') process.env[name] = value;
  }
  if (text !== null) process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = text;
}
