// Stage 13 of the pipeline (./pipeline.ts): "Page not found" for a path no page, file or rule of
// the build answers, in the visitor's language (Accept-Language), from memory: the build wrote one
// document per language (lib/error-pages/not-found-pages.ts), read once here, each answer's
// headers and gzip made once. Next would answer these paths with its one prerendered 404
// (pages/404.tsx) in the default language; it still answers every path this stage cannot be sure
// of.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { notFoundFile } from '../error-pages/paths';
import { acceptsGzip } from '../http/accept-encoding';
import { negotiateLanguage } from '../language/negotiate';

/** Answers the request if its path is surely unknown, and says so; otherwise leaves it alone. */
export type NotFoundStage = (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;

interface Rule {
  regex: string;
}
interface RoutesManifest {
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
 * Which paths Next would answer with its 404 page, from the build's routes manifest: none of its
 * pages (static or dynamic), public files, redirects (its own trailing-slash one included), header
 * rules or rewrites can match them. Null when the build leaves that to code that runs per request
 * (middleware, fallback rewrites, i18n routing, a base path): then Next answers every path.
 * A path with percent-escapes is tested as sent and decoded (Next matches pages on the decoded
 * path), and is unknown only when both are. Paths that do not decode, dot segments (sent or
 * escaped) and `/_next/` are always left to Next, which normalises them its own way.
 */
export function unknownPathTest(
  manifest: RoutesManifest,
  hasMiddleware: boolean,
  publicFiles: ReadonlySet<string>,
): ((pathname: string) => boolean) | null {
  const rewrites = Array.isArray(manifest.rewrites)
    ? { afterFiles: manifest.rewrites }
    : (manifest.rewrites ?? {});
  if (hasMiddleware || manifest.basePath || manifest.i18n || (rewrites.fallback ?? []).length > 0)
    return null;
  const flags = manifest.caseSensitive ? '' : 'i';
  const rules = [
    ...(manifest.staticRoutes ?? []),
    ...(manifest.dynamicRoutes ?? []),
    ...(manifest.redirects ?? []),
    ...(manifest.headers ?? []),
    ...(rewrites.beforeFiles ?? []),
    ...(rewrites.afterFiles ?? []),
  ].map((rule) => new RegExp(rule.regex, flags));
  const files = new Set([...publicFiles].map((file) => (manifest.caseSensitive ? file : file.toLowerCase())));
  const known = (path: string) =>
    path.startsWith('/_next/') ||
    files.has(manifest.caseSensitive ? path : path.toLowerCase()) ||
    rules.some((rule) => rule.test(path));
  return (pathname) => {
    // The common case, without decoding: for a path with no escape both ways answer the same.
    // Stryker disable next-line ConditionalExpression,BooleanLiteral,StringLiteral: a fast path, same answer as the one below
    if (!pathname.includes('%')) return SIMPLE_PATH.test(pathname) && !known(pathname);
    const decoded = decodedPath(pathname);
    return (
      decoded !== null &&
      ESCAPED_PATH.test(pathname) &&
      DECODED_PATH.test(decoded) &&
      !known(pathname) &&
      !known(decoded)
    );
  };
}

/** Segments of plain characters, no `.` or `..` segment, no empty segment. */
const SIMPLE_PATH = /^(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._~!$&'()*+,;=:@-]+)*\/?$/;
/** The same, with percent-escapes. */
const ESCAPED_PATH = /^(?:\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)*\/?$/;
/** A path decoded: no `.` or `..` segment, no empty segment, no control character. */
const DECODED_PATH = /^(?:\/(?!\.\.?(?:\/|$))[^/\x00-\x1f\x7f]+)*\/?$/;

/** The path decoded as Next decodes it, or null when it does not decode (Next answers those). */
function decodedPath(pathname: string): string | null {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return null;
  }
}

interface Answer {
  body: Buffer;
  gzipped: Buffer;
  headers: Record<string, string>;
  gzipHeaders: Record<string, string>;
}

/**
 * The stage, from each language's document (`documents`, the default first). `compress`: gzip
 * the answer for clients that take it, as Next does (its `compress` setting).
 */
export function notFoundStage({
  documents,
  isUnknown,
  compress,
}: {
  documents: ReadonlyMap<string, Buffer>;
  isUnknown: (pathname: string) => boolean;
  compress: boolean;
}): NotFoundStage | null {
  const languages = [...documents.keys()];
  const fallback = languages[0];
  if (fallback === undefined) return null;
  const answers = new Map<string, Answer>();
  for (const [language, body] of documents) {
    const common = {
      'Content-Type': 'text/html; charset=utf-8',
      // As Next's own 404: never kept, so a page made later at this path is found at once.
      'Cache-Control': 'private, no-cache, no-store, max-age=0, must-revalidate',
      Vary: compress ? 'Accept-Encoding, Accept-Language' : 'Accept-Language',
      'Content-Language': language,
    };
    // Once per start, so the smallest: the level changes the bytes sent, not what they decompress to.
    // Stryker disable next-line ObjectLiteral: the size only
    const gzipped = compress ? gzipSync(body, { level: 9 }) : body;
    answers.set(language, {
      body,
      gzipped,
      headers: { ...common, 'Content-Length': String(body.length) },
      gzipHeaders: { ...common, 'Content-Encoding': 'gzip', 'Content-Length': String(gzipped.length) },
    });
  }
  return (req, res, pathname) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !isUnknown(pathname)) return false;
    const language = negotiateLanguage(req.headers['accept-language'], languages, fallback);
    const answer = answers.get(language)!;
    const gzip = compress && acceptsGzip(req.headers['accept-encoding']);
    res.writeHead(404, gzip ? answer.gzipHeaders : answer.headers);
    // To HEAD, Node writes the headers alone (Content-Length included) and drops the body.
    res.end(gzip ? answer.gzipped : answer.body);
    return true;
  };
}

/**
 * The stage for a build: its manifest, its documents in `languages` (the default first), and
 * whether Next compresses. Null, with Next answering every unknown path, when the build has no
 * such documents (made before them) or routes per request (see unknownPathTest).
 */
export function readNotFoundStage({
  root,
  distDir,
  languages,
  publicFiles,
  compress,
}: {
  root: string;
  distDir: string;
  languages: readonly string[];
  publicFiles: ReadonlySet<string>;
  compress: boolean;
}): NotFoundStage | null {
  const read = (file: string) => readFileSync(path.join(root, distDir, file));
  try {
    const manifest = JSON.parse(read('routes-manifest.json').toString('utf8')) as RoutesManifest;
    const middleware = JSON.parse(read('server/middleware-manifest.json').toString('utf8')) as {
      sortedMiddleware?: unknown[];
      middleware?: Record<string, unknown>;
    };
    const hasMiddleware =
      (middleware.sortedMiddleware ?? []).length > 0 || Object.keys(middleware.middleware ?? {}).length > 0;
    const isUnknown = unknownPathTest(manifest, hasMiddleware, publicFiles);
    if (!isUnknown) return null;
    const documents = new Map(languages.map((language) => [language, read(notFoundFile(language))]));
    return notFoundStage({ documents, isUnknown, compress });
  } catch {
    return null;
  }
}
