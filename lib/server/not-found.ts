// Stage 13 of the pipeline (./pipeline.ts): "Page not found" in the visitor's language
// (Accept-Language), from memory: the build wrote one document per language
// (lib/error-pages/not-found-pages.ts), read once here, each answer's headers and gzip made once.
// Two ways in, one answer: for a path the shell is certain no page, file or rule of the build
// answers (./unknown-paths.ts), at once, before Next; for every other path Next decides, and when
// it decides on its 404 the shell answers in its place (./restyle-not-found.ts). Unknown API paths
// get problem details (JSON) either way, never a page.
import { readFileSync } from 'node:fs';
// Next's own test (its router answers a subresource's 404 in plain text): a small module, no more.
import { isNonHtmlSecFetchDest } from 'next/dist/server/lib/is-non-html-sec-fetch-dest';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { notFoundFile } from '../error-pages/paths';
import { acceptsGzip } from '../http/accept-encoding';
import { sendProblem } from '../http/problem';
import { isApiPath } from '../http/query-bound';
import { negotiateLanguage } from '../language/negotiate';
import { BODY_HEADERS } from './restyle-not-found';
import { publicPathsOf, unknownPathTest, type RoutesManifest } from './unknown-paths';

/** What the pipeline asks of this stage. */
export interface NotFoundStage {
  /** Answers the request if its path is surely unknown, and says so; otherwise leaves it alone. */
  answerIfUnknown: (req: IncomingMessage, res: ServerResponse, pathname: string) => boolean;
  /** Answers a request Next decided is not found (its status and headers stay; the body is ours). */
  answer: (req: IncomingMessage, res: ServerResponse, pathname: string) => void;
}

export const API_NOT_FOUND = 'No API route answers this path.';

interface Answer {
  body: Buffer;
  gzipped: Buffer;
  headers: Record<string, string>;
  gzipHeaders: Record<string, string>;
}

/**
 * The stage, from each language's document (`documents`, the default first). `compress`: gzip
 * the answer for clients that take it, as Next does (its `compress` setting). `isUnknown`: the
 * paths answered before Next (null: none). `basePath`: Next's, so that `<basePath>/api/…` is an
 * API path.
 */
export function notFoundStage({
  documents,
  isUnknown,
  compress,
  basePath = '',
}: {
  documents: ReadonlyMap<string, Buffer>;
  isUnknown: ((pathname: string) => boolean) | null;
  compress: boolean;
  basePath?: string;
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
  // The base path alone is no API path, so only what lies below it is looked at.
  const isApi = (pathname: string) =>
    basePath
      ? pathname.startsWith(`${basePath}/`) && isApiPath(pathname.slice(basePath.length))
      : isApiPath(pathname);
  const answer = (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    // What Next set for its own body goes; the rest (its rules' headers, the shell's) stays.
    for (const name of BODY_HEADERS) res.removeHeader(name);
    // To HEAD, Node writes the headers alone (Content-Length included) and drops the body.
    if (isApi(pathname)) {
      sendProblem(res, 404, API_NOT_FOUND);
      return;
    }
    const language = negotiateLanguage(req.headers['accept-language'], languages, fallback);
    const chosen = answers.get(language)!;
    const gzip = compress && acceptsGzip(req.headers['accept-encoding']);
    res.writeHead(404, gzip ? chosen.gzipHeaders : chosen.headers);
    // To HEAD, Node writes the headers alone (Content-Length included) and drops the body.
    res.end(gzip ? chosen.gzipped : chosen.body);
  };
  return {
    answerIfUnknown: (req, res, pathname) => {
      if ((req.method !== 'GET' && req.method !== 'HEAD') || !isUnknown?.(pathname)) return false;
      // Next answers a missing image, script or font with a short text, not a page
      // (isNonHtmlSecFetchDest in next/dist/server/lib/router-server.js): let it.
      if (isNonHtmlSecFetchDest(req.headers['sec-fetch-dest'])) return false;
      answer(req, res, pathname);
      return true;
    },
    answer,
  };
}

/** Whether a build's middleware manifest names any middleware (or proxy). */
function hasMiddleware(manifest: { sortedMiddleware?: unknown[]; middleware?: Record<string, unknown> }) {
  return (manifest.sortedMiddleware ?? []).length > 0 || Object.keys(manifest.middleware ?? {}).length > 0;
}

/**
 * Whether the build runs a proxy (Next 16's name for middleware) or middleware before its routes:
 * its middleware manifest says so, or, for a proxy on Node's runtime, its functions manifest.
 * Unreadable manifests count as a proxy: then Next decides.
 */
export function hasProxy(root: string, distDir: string): boolean {
  try {
    const read = (file: string) =>
      JSON.parse(readFileSync(path.join(root, distDir, file), 'utf8')) as unknown;
    const functions = (
      read('server/functions-config-manifest.json') as { functions?: Record<string, unknown> }
    ).functions;
    return (
      hasMiddleware(read('server/middleware-manifest.json') as Parameters<typeof hasMiddleware>[0]) ||
      Object.keys(functions ?? {}).some((name) => name === '/_middleware' || name === '/_proxy')
    );
  } catch {
    return true;
  }
}

/**
 * The stage for a build: its manifest, its documents in `languages` (the default first), the files
 * of public/ and whether Next compresses. Null, with Next's own 404 page for every unknown path,
 * when the build has no such documents (made before them). A build that routes per request
 * (./unknown-paths.ts) gets no answers before Next, only Next's 404 restyled.
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
    const documents = new Map(languages.map((language) => [language, read(notFoundFile(language))]));
    return notFoundStage({
      documents,
      isUnknown: unknownPathTest(manifest, hasProxy(root, distDir), publicPathsOf(publicFiles)),
      compress,
      basePath: manifest.basePath ?? '',
    });
  } catch {
    return null;
  }
}
