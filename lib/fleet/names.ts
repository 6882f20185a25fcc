// Which of Next's build files a request asks for, and which build it names, from the path alone.
// Only names shaped as Next writes them are ever asked of a peer (docs/fleet.md): a stranger's path
// that is not one of these never leaves the process.

/** The longest build name the fleet carries (a build id, or a deployment id: ./deployment.ts). */
export const MAX_BUILD_NAME = 64;
/** Next's build ids: nanoid's alphabet (or a `generateBuildId` of the same letters). */
const BUILD_ID = new RegExp(`^[A-Za-z0-9_-]{1,${MAX_BUILD_NAME}}$`);
/** A path segment of a file Next writes, decoded: hashes, page names, `[param]` folders. */
const SEGMENT = /^[A-Za-z0-9_\-[\]().@+~]{1,200}$/;
/** What Next writes under static/: scripts, styles, fonts and images that code imports. */
const STATIC_FILE = /\.(?:js|css|woff2?|ttf|otf|eot|png|jpe?g|gif|svg|webp|avif|ico|wasm)$/;
/** Next's own folders under static/ that hold files of any build (content-hashed names). */
const SHARED_FOLDERS = new Set(['chunks', 'css', 'media']);
/** The files Next writes into static/<buildId>/. */
const BUILD_FILE = /^_[A-Za-z]{1,40}Manifest\.js(?:on)?$/;
/** Longer than any name Next writes: a longer path is refused before it is split. */
export const MAX_NAME_LENGTH = 1024;

export const STATIC_PREFIX = '/_next/static/';
const DATA_PREFIX = '/_next/data/';

export type Wanted =
  /** A file under static/: `file` decoded and relative to it; `build` where the path names one. */
  | { kind: 'static'; file: string; build: string | null }
  /** A page's data: only the build that made the page can answer it. */
  | { kind: 'data'; build: string };

/** The decoded segments of `raw`, or null when one is not shaped as Next writes them. */
function segments(raw: string): string[] | null {
  const parts = raw.split('/');
  for (let i = 0; i < parts.length; i += 1) {
    let part: string;
    try {
      part = decodeURIComponent(parts[i]!);
    } catch {
      return null;
    }
    // (Also refuses '.', '..' and an encoded '/' or '\': neither is in SEGMENT or both dots alone.)
    if (!SEGMENT.test(part) || part === '.' || part === '..') return null;
    parts[i] = part;
  }
  return parts;
}

/**
 * The build file `pathname` (no query) asks for, or null for any other path or a name Next never
 * writes. Cheap for every other path: one `startsWith`.
 */
export function wantedFile(pathname: string): Wanted | null {
  if (pathname.length > MAX_NAME_LENGTH) return null;
  if (pathname.startsWith(STATIC_PREFIX)) {
    const parts = segments(pathname.slice(STATIC_PREFIX.length));
    // One segment alone matches neither shape below: a folder is not a file.
    if (!parts) return null;
    const first = parts[0]!;
    const last = parts[parts.length - 1]!;
    if (SHARED_FOLDERS.has(first) && STATIC_FILE.test(last))
      return { kind: 'static', file: parts.join('/'), build: null };
    if (parts.length === 2 && BUILD_ID.test(first) && BUILD_FILE.test(last))
      return { kind: 'static', file: parts.join('/'), build: first };
    return null;
  }
  if (pathname.startsWith(DATA_PREFIX)) {
    const parts = segments(pathname.slice(DATA_PREFIX.length));
    // One segment alone cannot be both a build id (no dot) and a .json file.
    if (!parts || !BUILD_ID.test(parts[0]!) || !parts[parts.length - 1]!.endsWith('.json')) return null;
    return { kind: 'data', build: parts[0]! };
  }
  return null;
}

/**
 * The prefixes Next serves build files under besides none: `basePath` (files and data), and a
 * path-only `assetPrefix` (files; Next strips it as a path, never a URL's: a CDN that pulls from
 * the app asks the plain path). Longest first, so `/shop/_next/…` is not read as `/_next/…`'s.
 */
export function servedPrefixes(basePath = '', assetPrefix = ''): string[] {
  // (Without the slashes at its end, as the shell's own URLs drop them: lib/config/asset-urls.ts.)
  const trimmed = assetPrefix.replace(/\/+$/, '');
  // A URL without its scheme (`//cdn.example.com`) is another host to a browser too.
  const isUrl = URL.canParse(trimmed) || trimmed.startsWith('//');
  const assetPath = trimmed === '' || isUrl ? '' : trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
  return [...new Set([basePath, assetPath].filter(Boolean))].sort((a, b) => b.length - a.length);
}

/** `pathname` without the first of `prefixes` it starts with before `/_next/`, or as it is. */
export function withoutPrefix(pathname: string, prefixes: readonly string[]): string {
  for (const prefix of prefixes)
    if (pathname.startsWith(prefix) && pathname.startsWith('/_next/', prefix.length))
      return pathname.slice(prefix.length);
  return pathname;
}

/** Whether `value` is shaped as a build id (what a peer says it serves is checked with this). */
export function isBuildId(value: unknown): value is string {
  return typeof value === 'string' && BUILD_ID.test(value);
}
