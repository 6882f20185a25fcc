// Which paths the shell may answer "Page not found" itself, before Next (./not-found.ts): only
// those where it is certain Next would answer its 404, from the build's routes manifest and the
// files Next serves. Every other path, and every doubt, goes to Next, whose 404 the shell then
// restyles (./restyle-not-found.ts): a path left to Next costs time, never a wrong answer.
// docs/not-found.md lists each rule and where Next states what it copies.

export interface Rule {
  regex: string;
}
export interface RoutesManifest {
  basePath?: string;
  i18n?: unknown;
  caseSensitive?: boolean;
  staticRoutes?: Rule[];
  dynamicRoutes?: Rule[];
  redirects?: Rule[];
  headers?: Rule[];
  rewrites?: Rule[] | { beforeFiles?: Rule[]; afterFiles?: Rule[]; fallback?: Rule[] };
}

/**
 * Segments of unreserved characters only (RFC 3986 §2.3), none of them `.` or `..`, none empty, no
 * trailing slash: a path that no percent-decoding, no dot-segment removal, no repeated-slash or
 * trailing-slash redirect can change, in any configuration. `/` itself, too.
 */
const CERTAIN_PATH = /^(?:\/|(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._~-]+)+)$/;

/**
 * Prefixes Next serves from its own folders before any page or rule: `/_next/` (its build files,
 * its data routes, its image optimizer) and `/static/` (the root static/ folder, still served by
 * Next 16: `legacyStaticFolder` in next/dist/server/lib/router-utils/filesystem.js).
 */
const NEXT_FOLDERS = ['/_next', '/static'];

/**
 * The test, or null where no path is certain without running per-request code (middleware, a
 * fallback rewrite) or without locale and base-path handling (i18n, basePath): there Next decides
 * every path. `publicPaths`: every file below public/ and every folder on the way to one, as paths
 * (`/files/a b.txt`, `/files`), symbolic links followed.
 */
export function unknownPathTest(
  manifest: RoutesManifest,
  hasMiddleware: boolean,
  publicPaths: ReadonlySet<string>,
): ((pathname: string) => boolean) | null {
  const rewrites = Array.isArray(manifest.rewrites)
    ? { afterFiles: manifest.rewrites }
    : (manifest.rewrites ?? {});
  if (hasMiddleware || manifest.basePath || manifest.i18n || (rewrites.fallback ?? []).length > 0)
    return null;
  // Next matches routes without regard to case unless `caseSensitiveRoutes`; files are matched with
  // it. Comparing without case either way only leaves more to Next. A headers() rule decides no
  // answer, only headers, which the shell sets on its own answers as Next would
  // (lib/http/product-headers.ts): a product's `/:path*` rule leaves every 404 to the shell.
  const rules = [
    ...(manifest.staticRoutes ?? []),
    ...(manifest.dynamicRoutes ?? []),
    ...(manifest.redirects ?? []),
    ...(rewrites.beforeFiles ?? []),
    ...(rewrites.afterFiles ?? []),
  ].map((rule) => new RegExp(rule.regex, 'i'));
  const files = new Set([...publicPaths].map((file) => file.toLowerCase()));
  return (pathname) => {
    if (!CERTAIN_PATH.test(pathname)) return false;
    const lower = pathname.toLowerCase();
    if (NEXT_FOLDERS.some((folder) => lower === folder || lower.startsWith(`${folder}/`))) return false;
    // Next's own trailing-slash redirect is one of the rules: with `trailingSlash`, it matches
    // `/files/LICENSE` (no extension), which Next then serves at `/files/LICENSE/`.
    return !files.has(lower) && !rules.some((rule) => rule.test(pathname));
  };
}

/** Every path below public/ Next may serve, and every folder on the way to one (see unknownPathTest). */
export function publicPathsOf(files: Iterable<string>): ReadonlySet<string> {
  const paths = new Set<string>();
  for (const file of files) {
    const segments = file.split('/').filter(Boolean);
    for (let depth = 1; depth <= segments.length; depth += 1)
      paths.add(`/${segments.slice(0, depth).join('/')}`);
  }
  return paths;
}
