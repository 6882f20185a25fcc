// Removes what must never reach the error-reporting service, wherever in an event it hides: every
// string of the event is scrubbed (message, exception values, breadcrumbs, request, tags, extra,
// contexts, frame file names), every object key too, and the server's fallback log line goes
// through the same function. What goes: the shapes in ./secret-patterns.ts (keys, tokens, card
// numbers, credentials in URLs and headers), values of secret-named fields and parameters (in URLs
// and as `name=value` or `"name": "value"` in free text, quoted values whole), secrets inside URLs
// nested in other parameters, e-mail addresses, cookies, request headers other than the user agent,
// and the user. Nothing here throws.
import type { Breadcrumb, Event } from '@sentry/core';
import { FILTERED, scrubSecretShapes } from './secret-patterns';

export { FILTERED };
const ENCODED_FILTERED = encodeURIComponent(FILTERED);

/**
 * Field and parameter names whose values are treated as secret. Over-matching is the safe
 * direction; `pin` alone only as a word of its own (`pin`, `user_pin`), not inside `shipping`.
 */
const SECRET_NAME =
  /token|code|key|secret|passw|pwd|passphrase|session|sid|auth|jwt|bearer|signature|sig|credential|otp|email|e-mail|mail|ticket|nonce|state|access|refresh|cookie|private|cvv|cvc|ccv|card.?num|iban|ssn|(?:^|[^a-z])pin(?:$|[^a-z])/i;
const EMAIL = /[^\s@/?#&=:;,"'<>()[\]]{1,256}(?:@|%40)[^\s@/?#&=:;,"'<>()[\]]{1,256}\.[a-z]{2,}/gi;
/**
 * `name=value` or `name: value` in free text, the name possibly quoted (JSON, logs). A quoted
 * value is taken whole, spaces and all (`"password": "correct horse"`); an unquoted one to the
 * next space or separator.
 */
// An unquoted value is taken whole or not at all (a lookahead is atomic), and never ends in `:` or
// `=`: in `failed: password: "x y"`, `password:` is the next name, not the value of `failed`.
const NAME_VALUE =
  /(["']?)([A-Za-z_][A-Za-z0-9_.-]{0,128})\1(\s{0,8}[=:]\s{0,8})(?:"([^"\r\n]{0,2048})"|'([^'\r\n]{0,2048})'|(?=([^\s&;,"'<>]{1,4096}))\6(?<![=:]))/g;
/** Absolute URLs in free text, of any scheme (`https://`, `postgres://`, `redis://`). */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{0,30}:\/\/[^\s"'<>]{1,8192}/gi;
/** How deep URLs nested in parameters are followed. */
const MAX_NESTING = 3;

/** The rules of this file, beside the table of shapes: each has a row in the tests' secret table. */
export const SCRUB_RULES = [
  'secret-named-field',
  'url-parameter',
  'nested-url',
  'email',
  'object-key',
] as const;

/** Scrubs the shapes of secret that can appear anywhere in free text. */
export function scrubText(text: string, depth = 0): string {
  try {
    return scrubSecretShapes(text)
      .replace(URL_IN_TEXT, (url) => scrubUrl(url, depth))
      .replace(
        NAME_VALUE,
        (
          all,
          quote: string,
          name: string,
          separator: string,
          doubleQuoted?: string,
          singleQuoted?: string,
          bare?: string,
        ) => {
          const valueQuote = doubleQuoted !== undefined ? '"' : singleQuoted !== undefined ? "'" : '';
          const value = doubleQuoted ?? singleQuoted ?? bare ?? '';
          const kept = `${quote}${name}${quote}${separator}${valueQuote}`;
          if (SECRET_NAME.test(name)) return `${kept}${FILTERED}${valueQuote}`;
          // A value may be a URL of its own, encoded (`next=https%3A%2F%2F…%3Ftoken%3D…`).
          return depth < MAX_NESTING ? `${kept}${scrubValue(value, depth + 1)}${valueQuote}` : all;
        },
      )
      .replace(EMAIL, FILTERED);
  } catch {
    return FILTERED;
  }
}

function decoded(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text; // malformed: kept as it is, and still checked
  }
}

/**
 * A parameter value, scrubbed as what it says once decoded: free text, maybe a URL of its own
 * (`?next=https%3A%2F%2F…%3Ftoken%3D…`). Re-encoded only when something was removed.
 */
function scrubValue(value: string, depth: number): string {
  const plain = decoded(value);
  const scrubbed = scrubText(plain, Math.min(depth + 1, MAX_NESTING));
  if (scrubbed === plain) return value;
  // The marker stays readable, as it is everywhere else.
  return encodeURIComponent(scrubbed).replaceAll(ENCODED_FILTERED, FILTERED);
}

/** `a=1&token=x` → `a=1&token=[Filtered]`; keeps the order and the form of everything else. */
function scrubParams(params: string, depth: number): string {
  return params
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return scrubText(pair, MAX_NESTING);
      const name = pair.slice(0, equals);
      if (SECRET_NAME.test(decoded(name))) return `${name}=${FILTERED}`;
      return `${name}=${scrubValue(pair.slice(equals + 1), depth)}`;
    })
    .join('&');
}

/** Scrubs the path, the query string and the fragment of a URL (absolute or relative). */
export function scrubUrl(url: string, depth = 0): string {
  try {
    const hashAt = url.indexOf('#');
    const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
    const fragment = hashAt === -1 ? undefined : url.slice(hashAt + 1);
    const queryAt = beforeHash.indexOf('?');
    const base = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
    const query = queryAt === -1 ? undefined : beforeHash.slice(queryAt + 1);
    // The path: credentials in the authority, e-mail addresses and JWTs as segments.
    let out = scrubSecretShapes(base).replace(EMAIL, FILTERED);
    if (query !== undefined) out += `?${scrubParams(query, depth)}`;
    // A fragment is either parameters (OAuth's #access_token=…) or a plain anchor.
    if (fragment !== undefined)
      out += `#${fragment.includes('=') ? scrubParams(fragment, depth) : scrubText(fragment, MAX_NESTING)}`;
    return out;
  } catch {
    return FILTERED;
  }
}

/** Where user data lives in an event: here a secret-named field loses its value too. */
const USER_DATA = new Set(['extra', 'contexts', 'tags', 'data']);

/** `key`, or `key (2)`, `key (3)`…: two keys scrubbed to the same text both stay. */
function uniqueKey(out: Record<string, unknown>, key: string): string {
  if (!Object.hasOwn(out, key)) return key;
  let n = 2;
  while (Object.hasOwn(out, `${key} (${n})`)) n += 1;
  return `${key} (${n})`;
}

/** Every string scrubbed, every secret-named field of user data emptied; a new value, never the input. */
function scrubDeep(value: unknown, inUserData: boolean, seen: WeakSet<object>, depth: number): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value) || depth > 12) return FILTERED;
  seen.add(value);
  if (Array.isArray(value)) return value.map((item) => scrubDeep(item, inUserData, seen, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // Keys can be data too (`{ "jane@example.com": 3 }`, a token as a cache key).
    const outKey = uniqueKey(out, scrubText(key));
    if (inUserData && SECRET_NAME.test(key) && (typeof item === 'string' || typeof item === 'number')) {
      out[outKey] = FILTERED;
    } else {
      out[outKey] = scrubDeep(item, inUserData || USER_DATA.has(key), seen, depth + 1);
    }
  }
  return out;
}

/** Headers an event may keep: the user agent only. */
function keepUserAgent(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!headers) return undefined;
  const kept = Object.entries(headers).filter(([name]) => name.toLowerCase() === 'user-agent');
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export interface ScrubOptions {
  /**
   * The route pattern one of the app's paths belongs to (`/reset/[token]` for `/reset/abc`), so
   * URLs are reported without their concrete dynamic segments. Undefined: the path is kept, scrubbed.
   */
  routeOf?: (pathname: string) => string | undefined;
  /** The app's own origin: only relative URLs and URLs of this origin are the app's routes. */
  origin?: string;
}

const RELATIVE = 'http://relative.invalid';

/** The URL with its path replaced by the route it belongs to, when it is one of the app's paths. */
export function asRoute(url: string, routeOf: ScrubOptions['routeOf'], origin?: string): string {
  if (!routeOf) return url;
  try {
    const parsed = new URL(url, RELATIVE);
    const relative = parsed.origin === RELATIVE;
    if (!relative && parsed.origin !== origin) return url;
    const route = routeOf(parsed.pathname);
    if (!route) return url;
    return `${relative ? '' : parsed.origin}${route}${parsed.search}${parsed.hash}`;
  } catch {
    return url;
  }
}

export function scrubEvent<E extends Event>(event: E, options: ScrubOptions = {}): E {
  try {
    const { request, breadcrumbs, ...rest } = event;
    // The user goes whole: never an IP address or anything else that identifies a person.
    delete rest.user;
    const out = scrubDeep(rest, false, new WeakSet(), 0) as E;
    if (request) {
      // Allow-list: cookies, bodies and the server's environment never leave.
      const { url, method, query_string: query, headers } = request;
      const userAgent = keepUserAgent(headers);
      out.request = {
        ...(method ? { method } : {}),
        ...(url ? { url: scrubUrl(asRoute(url, options.routeOf, options.origin)) } : {}),
        ...(typeof query === 'string' ? { query_string: scrubParams(query, 0) } : {}),
        ...(userAgent ? { headers: userAgent } : {}),
      };
    }
    if (breadcrumbs) out.breadcrumbs = breadcrumbs.map((crumb) => scrubBreadcrumb(crumb, options));
    return out;
  } catch {
    // If scrubbing fails, send less rather than risk sending a secret.
    return { event_id: event.event_id, level: event.level, message: 'Event dropped by the scrubber' } as E;
  }
}

function scrubBreadcrumb(crumb: Breadcrumb, options: ScrubOptions): Breadcrumb {
  const data = crumb.data ? { ...crumb.data } : undefined;
  if (data) {
    for (const field of ['url', 'from', 'to']) {
      if (typeof data[field] === 'string')
        data[field] = asRoute(data[field], options.routeOf, options.origin);
    }
  }
  return scrubDeep({ ...crumb, ...(data ? { data } : {}) }, false, new WeakSet(), 0) as Breadcrumb;
}

export function scrubBreadcrumbOrDrop(crumb: Breadcrumb, options: ScrubOptions = {}): Breadcrumb | null {
  try {
    // Console breadcrumbs can carry anything a developer logged.
    if (crumb.category === 'console') return null;
    return scrubBreadcrumb(crumb, options);
  } catch {
    return null;
  }
}

/** The fields of the server's fallback log line, scrubbed the same way. */
export function scrubFields(fields: Record<string, unknown>): Record<string, unknown> {
  try {
    return scrubDeep(fields, false, new WeakSet(), 0) as Record<string, unknown>;
  } catch {
    return { note: 'fields dropped by the scrubber' };
  }
}
