// An entry of Next's page cache as the shared store keeps it: JSON text, with the two things JSON
// cannot hold (a Buffer: an App Router page's RSC payload, a route handler's body, an optimized image;
// a Map: an App Router page's segments) tagged so they come back as they went. A Pages Router page is
// plain JSON (its HTML and its props). Text, not V8's serializer: an operator can read an entry with
// redis-cli, and instances on another Node version read it alike.

/** What Next's cache handler get() returns and set() is given, as this shell keeps it. */
export interface CacheEntry {
  lastModified: number;
  /** Next's cached value (null: a page that is `notFound`). */
  value: unknown;
  /** The lifetime set() was given, so another instance serves the entry with it. */
  cacheControl?: unknown;
}

const BUFFER_TAG = '__appShellBuffer';
const MAP_TAG = '__appShellMap';

export function encodeEntry(entry: CacheEntry): string {
  return JSON.stringify(entry, function replace(this: Record<string, unknown>, key, value: unknown) {
    // `value` is already a Buffer's toJSON() (a list of numbers); the holder still has the Buffer.
    const original = this[key];
    if (Buffer.isBuffer(original)) return { [BUFFER_TAG]: original.toString('base64') };
    if (original instanceof Map) return { [MAP_TAG]: [...original.entries()] };
    return value;
  });
}

/** The entry `text` holds; null for text that is not one (a store entry from something else). */
export function decodeEntry(text: string): CacheEntry | null {
  try {
    const entry = JSON.parse(text, (_key, value: unknown) => {
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        const tagged = value as Record<string, unknown>;
        if (typeof tagged[BUFFER_TAG] === 'string') return Buffer.from(tagged[BUFFER_TAG], 'base64');
        if (Array.isArray(tagged[MAP_TAG])) return new Map(tagged[MAP_TAG] as [unknown, unknown][]);
      }
      return value;
    }) as unknown;
    if (entry === null || typeof entry !== 'object') return null;
    const { lastModified } = entry as { lastModified?: unknown };
    if (typeof lastModified !== 'number' || !Number.isFinite(lastModified)) return null;
    if (!('value' in entry)) return null;
    return entry as CacheEntry;
  } catch {
    return null;
  }
}
