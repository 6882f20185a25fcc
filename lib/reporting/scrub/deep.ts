// Any value scrubbed as a whole: every string through ./text.ts, every object key too (keys can
// be data), and in user data (extra, contexts, tags, breadcrumb data) a secret-named field loses its
// value whatever it holds. Always a new value, never the input; nothing here throws.
import { FILTERED, SECRET_NAME } from './patterns';
import { scrubText } from './text';

/**
 * How deep a value is followed; below it a value is replaced whole. SECURITY: bounds the work and
 * the stack a value of any shape costs (a browser can send an event nested thousands deep).
 */
export const MAX_DEPTH = 12;

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
export function scrubDeep(
  value: unknown,
  inUserData: boolean,
  seen: WeakSet<object>,
  depth: number,
): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value) || depth > MAX_DEPTH) return FILTERED;
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

/** The fields of the server's fallback log line, scrubbed the same way. */
export function scrubFields(fields: Record<string, unknown>): Record<string, unknown> {
  try {
    return scrubDeep(fields, false, new WeakSet(), 0) as Record<string, unknown>;
  } catch {
    return { note: 'fields dropped by the scrubber' };
  }
}
