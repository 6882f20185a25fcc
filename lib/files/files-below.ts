// Walking a folder of files the server or a build step reads once: public/, a build's static/.
import { readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file below `folder`, at any depth, as its path relative to `folder` with / between
 * folders. Throws (on first use) when `folder` cannot be read.
 */
export function* filesBelow(folder: string): Generator<string> {
  for (const entry of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      yield path.relative(folder, path.join(entry.parentPath, entry.name)).split(path.sep).join('/');
  }
}
