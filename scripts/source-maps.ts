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
import { readVariable } from '../lib/config/variables';
import { builtConfigText, parseBuiltConfig } from '../lib/server/build-output';

const ROOT = path.resolve(__dirname, '../..');
// NEXT_DIST_DIR, SENTRY_AUTH_TOKEN and the rest may sit in .env files, as for `next build`: load
// them the same way (the environment wins) before anything is read.
loadEnvConfig(ROOT, false, { info: () => {}, error: (...args: unknown[]) => console.error(...args) });
const DIST = path.resolve(ROOT, readVariable('distDir', process.env, []));
/** The one folder maps are kept in: inside the build, outside everything the server serves. */
export const MAPS_FOLDER = 'sourcemaps';

interface SourceMapJson {
  debug_id?: string;
  debugId?: string;
  [key: string]: unknown;
}

function sentryCli(args: string[]): string {
  // An empty SENTRY_URL (the Dockerfile's default) means sentry.io, not a URL sentry-cli must parse.
  const env = { ...process.env };
  if (!env.SENTRY_URL) delete env.SENTRY_URL;
  const bin = require.resolve('@sentry/cli/bin/sentry-cli', { paths: [ROOT] });
  return execFileSync(process.execPath, [bin, ...args], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
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
function linkBrowserMaps(): Record<string, string> {
  const ids: Record<string, string> = {};
  const staticDir = path.join(DIST, 'static');
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
 * each file. Appended, so the SDK file's own map stays valid.
 */
function registerInSdk(ids: Record<string, string>): boolean {
  const chunks = path.join(DIST, 'static/chunks');
  const sdk = existsSync(chunks)
    ? readdirSync(chunks).find((name) => /^reporting-.+\.js$/.test(name))
    : undefined;
  if (!sdk) return false;
  const byPath = JSON.stringify(
    Object.fromEntries(Object.entries(ids).map(([file, id]) => [`/_next/static/${file}`, id])),
  );
  appendFileSync(
    path.join(chunks, sdk),
    `\n;(function(){try{var g=globalThis,o=location.origin,m=${byPath},d=g._sentryDebugIds=g._sentryDebugIds||{};` +
      `for(var f in m)d["Error\\n    at debugId ("+o+f+":1:1)"]=m[f]}catch(e){}})();\n`,
  );
  return true;
}

/**
 * Moves every map (and, for the upload, a copy of its bundle marked with its debug ID) into
 * <dist>/sourcemaps/{client,server}/, leaving none where the server serves files.
 */
function moveMaps(browserIds: Record<string, string>): number {
  const kept = path.join(DIST, MAPS_FOLDER);
  rmSync(kept, { recursive: true, force: true });
  let count = 0;
  for (const [side, from] of [
    ['client', path.join(DIST, 'static')],
    ['server', path.join(DIST, 'server')],
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
function syncStandalone(): void {
  const standaloneServer = path.join(DIST, 'standalone', path.relative(ROOT, DIST), 'server');
  if (!existsSync(standaloneServer)) return;
  for (const file of filesUnder(standaloneServer, '.map')) rmSync(path.join(standaloneServer, file));
  for (const file of filesUnder(path.join(DIST, 'server'), '.js')) {
    if (existsSync(path.join(standaloneServer, file)))
      cpSync(path.join(DIST, 'server', file), path.join(standaloneServer, file));
  }
}

function buildRelease(): string | undefined {
  return parseBuiltConfig(builtConfigText(ROOT, path.relative(ROOT, DIST)))?.env?.APP_RELEASE;
}

/** Uploads the kept maps to Sentry when credentials are set; returns whether it did. */
export function uploadIfConfigured(): boolean {
  const credentials = (['sentryAuthToken', 'sentryOrg', 'sentryProject'] as const).map((key) =>
    readVariable(key, process.env, []),
  );
  if (credentials.some((value) => !value)) return false;
  const folder = path.join(DIST, MAPS_FOLDER);
  if (!existsSync(folder))
    throw new Error(`No source maps in ${path.relative(ROOT, folder)}: run npm run build first.`);
  const release = buildRelease();
  if (!release)
    throw new Error('The build names no release (required-server-files.json): run npm run build first.');
  sentryCli(['releases', 'new', release]);
  sentryCli(['sourcemaps', 'upload', '--release', release, folder]);
  sentryCli(['releases', 'finalize', release]);
  rmSync(folder, { recursive: true, force: true });
  return true;
}

function main() {
  const command = process.argv[2] ?? 'build';
  if (command === 'upload') {
    if (!uploadIfConfigured()) {
      console.error(
        'Set SENTRY_AUTH_TOKEN, SENTRY_ORG and SENTRY_PROJECT (and SENTRY_URL for self-hosted Sentry).',
      );
      process.exit(1);
    }
    console.log('Source maps uploaded to Sentry and removed from the build.');
    return;
  }
  if (existsSync(path.join(DIST, 'server'))) sentryCli(['sourcemaps', 'inject', path.join(DIST, 'server')]);
  const browserIds = linkBrowserMaps();
  const registered = registerInSdk(browserIds);
  const count = moveMaps(browserIds);
  syncStandalone();
  const where = path.relative(ROOT, path.join(DIST, MAPS_FOLDER));
  if (uploadIfConfigured()) {
    console.log(`Source maps: ${count} uploaded to Sentry and removed from the build.`);
  } else {
    console.log(
      `Source maps: ${count} kept in ${where}/ (never served${registered ? '' : '; no SDK file in this build'}). ` +
        'Upload them with `npm run sourcemaps:upload` and SENTRY_AUTH_TOKEN, SENTRY_ORG, SENTRY_PROJECT set.',
    );
  }
}

if (require.main === module) {
  try {
    main();
  } catch (error) {
    console.error(`Source maps: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
