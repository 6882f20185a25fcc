// A product's own `headers()` (next.config.ts) on the answers the shell writes in Next's place:
// health probes, "Page not found" and problem details, the 414, the tunnel, the service worker's
// files. Next applies them only to what it answers itself; without this, a product's header (its
// own CSP, a team header) vanished wherever the shell answered, and the shell's defaults replaced it
// on a 404 Next had already decided.
//
// Not a matcher of our own: `next build` compiles headers() into routes-manifest.json, and this reads
// it once at start with the functions next-server itself builds and applies the rules with
// (next/dist/server/lib/router-utils/filesystem.js `buildCustomRoute`, the same `matchHas` and
// `compileNonPath` as next/dist/server/lib/router-utils/resolve-routes.js). What this copies of
// resolve-routes is only how the path is prepared and how values are collected, each named below.
import { readFileSync } from 'node:fs';
import type { IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Header } from 'next/dist/lib/load-custom-routes';
import { buildCustomRoute } from 'next/dist/server/lib/router-utils/filesystem';
import { getHostname } from 'next/dist/shared/lib/get-hostname';
import { detectDomainLocale } from 'next/dist/shared/lib/i18n/detect-domain-locale';
import { normalizeLocalePath } from 'next/dist/shared/lib/i18n/normalize-locale-path';
import { addPathPrefix } from 'next/dist/shared/lib/router/utils/add-path-prefix';
import { type ParsedUrl, parseUrl } from 'next/dist/shared/lib/router/utils/parse-url';
import { pathHasPrefix } from 'next/dist/shared/lib/router/utils/path-has-prefix';
import { compileNonPath, matchHas } from 'next/dist/shared/lib/router/utils/prepare-destination';
import { removePathPrefix } from 'next/dist/shared/lib/router/utils/remove-path-prefix';

/** What of a build's routes-manifest.json this reads. */
export interface HeadersManifest {
  basePath?: string;
  caseSensitive?: boolean;
  headers?: Header[];
  i18n?: {
    locales: string[];
    defaultLocale: string;
    domains?: { domain: string; defaultLocale: string; locales?: string[]; http?: true }[];
  } | null;
}

/** The headers Next would set for a request, in the order it sets them (later ones win). */
export type ProductHeaders = (req: IncomingMessage, url: string) => Record<string, string | string[]>;

/**
 * Next does not route a path with `\` or `//`: it answers a redirect to the normalised path with
 * none of the rules' headers ("normalizes repeated slashes" in resolve-routes.js).
 */
const UNROUTED = /\\|\/\//;

/**
 * The matcher for a manifest, or null when it has no header rules (then nothing is matched at all).
 * The rules are built once, here.
 */
export function productHeadersOf(manifest: HeadersManifest): ProductHeaders | null {
  // Stryker disable next-line StringLiteral: a manifest `next build` wrote always names its basePath; without one, any stand-in that starts with no `/` is the prefix of no path, as '' is
  const basePath = manifest.basePath ?? '';
  const rules = (manifest.headers ?? []).map((rule) =>
    buildCustomRoute('header', rule, basePath, manifest.caseSensitive === true),
  );
  if (rules.length === 0) return null;
  const { i18n } = manifest;

  /**
   * The path as Next's router matches it: with i18n, a path that names no locale gets the default
   * one (the domain's, if its Host names one) after the base path, except under /_next/
   * ("ensure locale is present for resolving routes" in resolve-routes.js, with its helpers).
   */
  const routed = (req: IncomingMessage, parsed: ParsedUrl, pathname: string): string => {
    if (!i18n) return pathname;
    const hadBasePath = pathHasPrefix(pathname, basePath);
    const local = normalizeLocalePath(removePathPrefix(pathname, basePath), i18n.locales);
    if (local.detectedLocale || local.pathname.startsWith('/_next/')) return pathname;
    const defaultLocale =
      detectDomainLocale(i18n.domains, getHostname(parsed, req.headers))?.defaultLocale ?? i18n.defaultLocale;
    return addPathPrefix(
      local.pathname === '/' ? `/${defaultLocale}` : addPathPrefix(local.pathname, `/${defaultLocale}`),
      hadBasePath ? basePath : '',
    );
  };

  return (req, url) => {
    const found: Record<string, string | string[]> = {};
    if (UNROUTED.test(url.split('?', 1)[0] as string)) return found;
    const parsed = parseUrl(url);
    // Stryker disable next-line StringLiteral: `url` is a path (the request target, checked), and a path's parsed pathname is never empty
    const pathname = routed(req, parsed, parsed.pathname || '/');
    for (const rule of rules) {
      let params = rule.match(pathname);
      if (
        params &&
        // Stryker disable next-line ConditionalExpression: with neither has nor missing, matchHas returns {} (every condition of none holds), which adds no parameter
        (rule.has || rule.missing)
      ) {
        const hasParams = matchHas(req, parsed.query, rule.has, rule.missing);
        params = hasParams ? Object.assign(params, hasParams) : false;
      }
      if (!params) continue;
      // As resolve-routes.js collects them: values compiled only when the rule captured something;
      // Set-Cookie values add up, every other name is replaced by a later rule's.
      const compile = Object.keys(params).length > 0;
      for (const header of rule.headers) {
        const key = compile ? compileNonPath(header.key, params) : header.key;
        const value = compile ? compileNonPath(header.value, params) : header.value;
        if (key.toLowerCase() === 'set-cookie') {
          const before = found[key];
          found[key] = [...(Array.isArray(before) ? before : []), value];
        } else {
          found[key] = value;
        }
      }
    }
    return found;
  };
}

/** The matcher for the build in `root/distDir`; null without header rules or a readable manifest. */
export function readProductHeaders(root: string, distDir: string): ProductHeaders | null {
  try {
    const manifest = JSON.parse(
      readFileSync(path.join(root, distDir, 'routes-manifest.json'), 'utf8'),
    ) as HeadersManifest;
    return productHeadersOf(manifest);
  } catch {
    return null;
  }
}

/** Where an answer keeps what applyProductHeaders was given, and whether Next answers it. */
export const PRODUCT_HEADERS = Symbol('app-shell.productHeaders');
export const PRODUCT_HEADERS_URL = Symbol('app-shell.productHeadersUrl');
export const NEXT_ANSWERS = Symbol('app-shell.nextAnswers');

/** An answer that can carry the product's headers: the server's own (lib/server/shell-response.ts). */
export interface CarriesProductHeaders extends ServerResponse {
  [PRODUCT_HEADERS]: ProductHeaders | undefined;
  /** Set with the matcher. */
  [PRODUCT_HEADERS_URL]: string | undefined;
  /** Whether Next answers the response (its own rules are then its to set). */
  [NEXT_ANSWERS]: boolean;
}

/** From now on Next writes this answer, and sets the product's headers itself. */
export function handedToNext(res: CarriesProductHeaders): void {
  res[NEXT_ANSWERS] = true;
}

/** The shell writes this answer after all (a 404 Next decided, answered in the shell's words). */
export function takenBack(res: CarriesProductHeaders): void {
  res[NEXT_ANSWERS] = false;
}

/**
 * Sets the product's headers on every answer the shell writes for its request (at `url`, as Next
 * would be asked it: Next's router may change req.url before a 404 it decides), when its head is
 * written (productHeadersHead): after the shell's defaults (the security headers, set on every
 * response before this), so a product header of the same name wins; before the answer's own
 * headers given to writeHead (a probe's Cache-Control, a 404's Content-Type), as a route's own
 * headers win over headers() under Next. Answers Next writes are left to Next (see handedToNext).
 * Two fields, not a wrapper made for each request.
 */
export function applyProductHeaders(match: ProductHeaders, res: CarriesProductHeaders, url: string): void {
  res[PRODUCT_HEADERS] = match;
  res[PRODUCT_HEADERS_URL] = url;
}

/** What writeHead does first for an answer given the product's headers. Never throws. */
export function productHeadersHead(res: CarriesProductHeaders): void {
  const match = res[PRODUCT_HEADERS];
  // Stryker disable next-line ConditionalExpression: a cost only; calling no matcher throws, which the catch below absorbs.
  if (match === undefined) return;
  if (res[NEXT_ANSWERS]) return;
  // Stryker disable next-line ConditionalExpression: a cost only; setHeader throws once the head is sent, which the catch absorbs, and writeHead then throws as it would.
  if (res.headersSent) return;
  try {
    const found = match(res.req, res[PRODUCT_HEADERS_URL] as string);
    for (const name of Object.keys(found)) res.setHeader(name, found[name] as OutgoingHttpHeader);
  } catch {
    // A rule's value that cannot be compiled for this path: the answer goes without it.
  }
}
