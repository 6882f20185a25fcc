// Secrets out of free text and URLs: the shapes of ./patterns.ts anywhere, values of secret-named
// fields and parameters (`name=value`, `"name": "value"`, `?token=`), secrets in URLs nested in
// other parameters, e-mail addresses. Nothing here throws.
import { EMAIL, FILTERED, NAME_VALUE, scrubSecretShapes, SECRET_NAME, URL_IN_TEXT } from './patterns';

const ENCODED_FILTERED = encodeURIComponent(FILTERED);
/** How deep values nested in values (`a=b%3Dc%253D…`) are followed. */
const MAX_NESTING = 3;
/** A `name=value` anywhere in a text: NAME_VALUE, without the position a global pattern keeps. */
const HOLDS_PAIR = new RegExp(NAME_VALUE.source);

/**
 * What short texts scrubbed to, kept for the next event: most of an event's strings are the same
 * from one event to the next (field names, methods, routes, the release), and the pattern table
 * costs tens of microseconds per string. Bounded by count and length, emptied when full, never
 * written anywhere: it only saves the work.
 */
const remembered = new Map<string, string>();
const REMEMBERED_MAX = 2048;
const REMEMBERED_MAX_LENGTH = 256;

/** Scrubs the shapes of secret that can appear anywhere in free text. */
export function scrubText(text: string, depth = 0): string {
  // A cache, so whether a text is remembered changes the work and never the answer.
  if (depth !== 0 || text.length > REMEMBERED_MAX_LENGTH) return scrubTextNow(text, depth);
  const known = remembered.get(text);
  if (known !== undefined) return known;
  const scrubbed = scrubTextNow(text, 0);
  if (remembered.size >= REMEMBERED_MAX) remembered.clear();
  remembered.set(text, scrubbed);
  return scrubbed;
}

function scrubTextNow(text: string, depth: number): string {
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
          // Stryker disable next-line StringLiteral: one of the three groups always matches.
          const value = doubleQuoted ?? singleQuoted ?? bare ?? '';
          const kept = `${quote}${name}${quote}${separator}${valueQuote}`;
          if (SECRET_NAME.test(name)) return `${kept}${FILTERED}${valueQuote}`;
          // A value may be a URL of its own, encoded (`next=https%3A%2F%2F…%3Ftoken%3D…`).
          if (depth < MAX_NESTING) return `${kept}${scrubValue(value, depth + 1)}${valueQuote}`;
          // Deeper than that, a value holding a pair of its own could hide a secret in it: it is
          // filtered unread, so that the bound limits the work and never lets a secret through.
          return HOLDS_PAIR.test(decoded(value)) ? `${kept}${FILTERED}${valueQuote}` : all;
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
export function scrubParams(params: string, depth: number): string {
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
