// A server error's stack as it reads in the sources (`pages/products/[id].tsx:14:18`), not in the
// minified bundles (`[id].js:1:2345`), for the log line written without Sentry (Sentry resolves its
// frames itself, by debug ID). The build keeps the server's maps outside what it serves
// (scripts/source-maps.ts: <dist>/sourcemaps/server/, no `sourceMappingURL` in any bundle), so
// Node's own --enable-source-maps cannot find them; Node's SourceMap class reads them here instead,
// with no library, and only when an error is logged: nothing at start, nothing for other errors
// (docs/error-reporting.md, "Readable stack traces", has the figures).
import { readFileSync, statSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import path from 'node:path';
import { processSlot } from '../../process/slots';

/** Where a build's server bundles are, and where their maps are kept (absolute folders). */
export interface ServerMapsPlace {
  bundles: string;
  maps: string;
}

/** Written by the production server at start (lib/server/start.ts); read where errors are logged. */
// Stryker disable next-line StringLiteral: any name no other slot has does (the slots' unit test checks), as every copy of this module has the same.
export const serverMapsSlot = processSlot<ServerMapsPlace>('serverSourceMaps');

/** A map larger than this is not read: the error path must not parse hundreds of megabytes. */
export const MAX_MAP_BYTES = 32 * 1024 * 1024;
/** Parsed maps kept for the next error; the least recently used goes first. */
export const MAPS_KEPT = 32;
/** Frames of one stack looked up at most; the lines after are left as they are. */
export const MAX_FRAMES_RESOLVED = 30;

/** `    at name (file:line:column)` or `    at file:line:column`. */
const FRAME = /^(\s*at (?:.*? \()?)(.+):(\d+):(\d+)(\)?)$/;

/** Maps by bundle file: null for a bundle without a usable map, so it is not looked for again. */
const kept = new Map<string, SourceMap | null>();

function loadMap(mapFile: string): SourceMap | null {
  try {
    if (statSync(mapFile).size > MAX_MAP_BYTES) return null;
    return new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')) as SourceMapPayload);
  } catch {
    // No map (uploaded to Sentry and removed, or never made), or one that does not parse.
    return null;
  }
}

function mapFor(bundle: string, place: ServerMapsPlace): SourceMap | null {
  const known = kept.get(bundle);
  if (known !== undefined) {
    // Most recently used last.
    kept.delete(bundle);
    kept.set(bundle, known);
    return known;
  }
  const map = loadMap(path.join(place.maps, `${path.relative(place.bundles, bundle)}.map`));
  if (kept.size >= MAPS_KEPT) kept.delete(kept.keys().next().value as string);
  kept.set(bundle, map);
  return map;
}

/** A map's name for a source as a path in the app (`webpack://app/./pages/a.tsx` → `pages/a.tsx`). */
export function sourcePath(source: string): string {
  return source.replace(/^webpack:\/\/[^/]*\//, '').replace(/^\.\//, '');
}

function resolveFrame(line: string, place: ServerMapsPlace): string {
  const frame = FRAME.exec(line);
  // Stryker disable next-line ConditionalExpression: never null: sourceMappedStack hands over only the lines FRAME matched.
  if (!frame) return line;
  const [, head, file, lineNumber, column, tail] = frame as unknown as string[] as [
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  // Only the build's own server bundles: never a path outside the folder (no `..` after relative()).
  if (!file.startsWith(place.bundles + path.sep) || !file.endsWith('.js')) return line;
  const origin = mapFor(file, place)?.findOrigin(Number(lineNumber), Number(column));
  // (Past the last mapping of its line Node answers a column below 1: no place in the sources.)
  if (!origin || !('fileName' in origin) || !origin.fileName || origin.columnNumber < 1) return line;
  return `${head}${sourcePath(origin.fileName)}:${origin.lineNumber}:${origin.columnNumber}${tail}`;
}

/**
 * `stack` with each frame in the server's bundles replaced by where it is in the sources, when the
 * build kept its maps where the server was told (serverMapsSlot); a frame without a mapping, and
 * everything without the slot, stays as it was. Never throws.
 */
export function sourceMappedStack(stack: string, place = serverMapsSlot.read()): string {
  if (!place) return stack;
  try {
    const lines = stack.split('\n');
    let looked = 0;
    return lines
      .map((line) => {
        if (looked >= MAX_FRAMES_RESOLVED || !FRAME.test(line)) return line;
        looked += 1;
        return resolveFrame(line, place);
      })
      .join('\n');
  } catch {
    return stack;
  }
}

/** Forgets every map read: for tests. */
export function forgetMaps(): void {
  kept.clear();
}
