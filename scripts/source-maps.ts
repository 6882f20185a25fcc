// The last step of `npm run build`: links every bundle to its source map by a debug ID, moves the
// maps out of what the server serves, and uploads them when Sentry credentials are set. Compiled
// with the server (tsconfig.server.json); `npm run sourcemaps:upload` runs the upload on its own.
//
// Server bundles get Sentry's own injection (`sentry-cli sourcemaps inject`): a snippet in each file
// registers its debug ID. Browser bundles do not: the snippet in every first-load file would cost
// about 1.2 KB gzip on every page. Their IDs go into their maps only, and the lazily loaded SDK
// file registers them all for the SDK when it loads (see docs/source-maps.md).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { loadEnvConfig } from '@next/env';
import { readVariable, type Env } from '../lib/config/variables';
import { assetBase, type AssetConfig, assetUrl } from '../lib/config/asset-urls';
import { builtConfigText, MAPS_FOLDER, parseBuiltConfig } from '../lib/server/build-output';

/** The app's root, and the build folder in it (NEXT_DIST_DIR, `.next` by default). */
export interface Build {
  root: string;
  dist: string;
}

/** Runs sentry-cli with `args`; returns what it printed. */
export type SentryCli = (args: string[]) => string;

/**
 * The build of the app at `root`. NEXT_DIST_DIR, SENTRY_AUTH_TOKEN and the rest may sit in .env
 * files, as for `next build`: they are loaded the same way (the environment wins) first.
 */
export function buildAt(root: string): Build {
  loadEnvConfig(root, false, { info: () => {}, error: (...args: unknown[]) => console.error(...args) });
  return { root, dist: path.resolve(root, readVariable('distDir', process.env, [])) };
}

// The one folder maps are kept in: inside the build, outside everything the server serves.
export { MAPS_FOLDER };

interface SourceMapJson {
  debug_id?: string;
  debugId?: string;
  [key: string]: unknown;
}

/** sentry-cli as the app installs it (@sentry/cli, its binary from the registry), run in `root`. */
export function sentryCliIn(root: string): SentryCli {
  return (args) => {
    // An empty SENTRY_URL (the Dockerfile's default) means sentry.io, not a URL sentry-cli must parse.
    const env = { ...process.env };
    if (!env.SENTRY_URL) delete env.SENTRY_URL;
    const bin = require.resolve('@sentry/cli/bin/sentry-cli', { paths: [root] });
    return execFileSync(process.execPath, [bin, ...args], {
      cwd: root,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
  };
}

/** Every file under `dir` whose name ends with `suffix`, as paths relative to `dir`. */
function filesUnder(dir: string, suffix: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith(suffix));
}

/** A debug ID from a file's content, in UUID form, the same for the same bytes. */
export function debugIdFor(content: Buffer): string {
  const hex = createHash('sha256').update(content).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Writes a debug ID into each browser map; returns file (relative to static/) → ID. */
export function linkBrowserMaps(dist: string): Record<string, string> {
  const ids: Record<string, string> = {};
  const staticDir = path.join(dist, 'static');
  for (const mapFile of filesUnder(staticDir, '.js.map')) {
    const jsFile = mapFile.slice(0, -'.map'.length);
    if (!existsSync(path.join(staticDir, jsFile))) continue;
    const id = debugIdFor(readFileSync(path.join(staticDir, jsFile)));
    const map = JSON.parse(readFileSync(path.join(staticDir, mapFile), 'utf8')) as SourceMapJson;
    writeFileSync(path.join(staticDir, mapFile), JSON.stringify({ ...map, debug_id: id, debugId: id }));
    ids[jsFile] = id;
  }
  return ids;
}

/**
 * Appends to the SDK file the registration the SDK reads: `_sentryDebugIds` maps a stack (whose
 * frame names the file's URL) to the file's debug ID, as Sentry's own snippet does from inside
 * each file. Appended, so the SDK file's own map stays valid. Returns whether there was an SDK file.
 */
export function registerInSdk(dist: string, ids: Record<string, string>, assets: AssetConfig = {}): boolean {
  const chunks = path.join(dist, 'static/chunks');
  // The SDK file is one of chunks/' own files: no need to walk the folders below.
  const sdk = existsSync(chunks)
    ? readdirSync(chunks).find((name) => /^reporting-.+\.js$/.test(name))
    : undefined;
  if (!sdk) return false;
  // Each file's URL as the page asks for it, so as its frames name it: under the build's asset
  // prefix (a CDN's URL stands for the origin too), with its `?dpl=` (lib/config/asset-urls.ts).
  const byPath = JSON.stringify(
    Object.fromEntries(Object.entries(ids).map(([file, id]) => [assetUrl(assets, `static/${file}`), id])),
  );
  const origin = URL.canParse(assetBase(assets)) ? '""' : 'location.origin';
  appendFileSync(
    path.join(chunks, sdk),
    `\n;(function(){try{var g=globalThis,o=${origin},m=${byPath},d=g._sentryDebugIds=g._sentryDebugIds||{};` +
      `for(var f in m)d["Error\\n    at debugId ("+o+f+":1:1)"]=m[f]}catch(e){}})();\n`,
  );
  return true;
}

/**
 * Moves every map (and, for the upload, a copy of its bundle marked with its debug ID) into
 * <dist>/sourcemaps/{client,server}/, leaving none where the server serves files. Returns how many.
 */
export function moveMaps(dist: string, browserIds: Record<string, string>): number {
  const kept = path.join(dist, MAPS_FOLDER);
  rmSync(kept, { recursive: true, force: true });
  let count = 0;
  for (const [side, from] of [
    ['client', path.join(dist, 'static')],
    ['server', path.join(dist, 'server')],
  ] as const) {
    for (const mapFile of filesUnder(from, '.map')) {
      const target = path.join(kept, side, mapFile);
      mkdirSync(path.dirname(target), { recursive: true });
      renameSync(path.join(from, mapFile), target);
      count += 1;
      const jsFile = mapFile.slice(0, -'.map'.length);
      if (!jsFile.endsWith('.js') || !existsSync(path.join(from, jsFile))) continue;
      cpSync(path.join(from, jsFile), path.join(kept, side, jsFile));
      const id = side === 'client' ? browserIds[jsFile] : undefined;
      if (id) appendFileSync(path.join(kept, side, jsFile), `\n//# debugId=${id}\n`);
    }
  }
  return count;
}

/**
 * Standalone output (the container image) holds its own copy of the server bundles, made before
 * this step: give it the injected bundles, and no maps.
 */
export function syncStandalone({ root, dist }: Build): void {
  const standaloneServer = path.join(dist, 'standalone', path.relative(root, dist), 'server');
  for (const file of filesUnder(standaloneServer, '.map')) rmSync(path.join(standaloneServer, file));
  for (const file of filesUnder(path.join(dist, 'server'), '.js')) {
    if (existsSync(path.join(standaloneServer, file)))
      cpSync(path.join(dist, 'server', file), path.join(standaloneServer, file));
  }
}

/** Uploads the kept maps to Sentry when credentials are set; returns whether it did. */
export function uploadIfConfigured({ root, dist }: Build, cli: SentryCli, env: Env = process.env): boolean {
  const credentials = (['sentryAuthToken', 'sentryOrg', 'sentryProject'] as const).map((key) =>
    readVariable(key, env, []),
  );
  if (credentials.some((value) => !value)) return false;
  const folder = path.join(dist, MAPS_FOLDER);
  if (!existsSync(folder))
    throw new Error(`No source maps in ${path.relative(root, folder)}: run npm run build first.`);
  const release = parseBuiltConfig(builtConfigText(root, path.relative(root, dist)))?.env?.APP_RELEASE;
  if (!release)
    throw new Error('The build names no release (required-server-files.json): run npm run build first.');
  cli(['releases', 'new', release]);
  cli(['sourcemaps', 'upload', '--release', release, folder]);
  cli(['releases', 'finalize', release]);
  rmSync(folder, { recursive: true });
  return true;
}

/** `npm run build`'s step: links, moves and (with credentials) uploads; returns what to say. */
export function afterBuild(build: Build, cli: SentryCli, env: Env = process.env): string {
  const { root, dist } = build;
  if (existsSync(path.join(dist, 'server'))) cli(['sourcemaps', 'inject', path.join(dist, 'server')]);
  const browserIds = linkBrowserMaps(dist);
  const assets = parseBuiltConfig(builtConfigText(root, path.relative(root, dist))) ?? {};
  const registered = registerInSdk(dist, browserIds, assets);
  const count = moveMaps(dist, browserIds);
  syncStandalone(build);
  if (uploadIfConfigured(build, cli, env))
    return `Source maps: ${count} uploaded to Sentry and removed from the build.`;
  return (
    `Source maps: ${count} kept in ${path.relative(root, path.join(dist, MAPS_FOLDER))}/ ` +
    `(never served${registered ? '' : '; no SDK file in this build'}). ` +
    'Upload them with `npm run sourcemaps:upload` and SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT set.'
  );
}

/** `npm run sourcemaps:upload`: what to say, and the exit code. */
export function uploadCommand(
  build: Build,
  cli: SentryCli,
  env: Env = process.env,
): { message: string; code: 0 | 1 } {
  if (!uploadIfConfigured(build, cli, env))
    return {
      message:
        'Set SENTRY_AUTH_TOKEN, SENTRY_ORG and SENTRY_PROJECT (and SENTRY_URL for self-hosted Sentry).',
      code: 1,
    };
  return { message: 'Source maps uploaded to Sentry and removed from the build.', code: 0 };
}

if (require.main === module) {
  try {
    // Compiled to dist/scripts/: the app's root is two folders up.
    const build = buildAt(path.resolve(__dirname, '../..'));
    const cli = sentryCliIn(build.root);
    if (process.argv[2] === 'upload') {
      const { message, code } = uploadCommand(build, cli);
      (code === 0 ? console.log : console.error)(message);
      process.exitCode = code;
    } else {
      console.log(afterBuild(build, cli));
    }
  } catch (error) {
    console.error(`Source maps: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  }
}
