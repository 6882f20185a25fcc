// Walking a folder of files the server or a build step reads once: public/, a build's static/.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * Every file below `folder`, at any depth, as its path relative to `folder` with / between
 * folders. Symbolic links are followed, to files and to folders, as Next follows them when it
 * serves public/ (a link back to a folder it is in is not walked again: that would never end).
 * Throws (on first use) when `folder` cannot be read.
 */
export function* filesBelow(folder: string): Generator<string> {
  yield* walk(folder, '', new Set([realpathSync(folder)]));
}

function* walk(folder: string, prefix: string, ancestors: ReadonlySet<string>): Generator<string> {
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    const relative = `${prefix}${entry.name}`;
    let kind: 'file' | 'folder' | null = entry.isFile() ? 'file' : entry.isDirectory() ? 'folder' : null;
    if (entry.isSymbolicLink()) kind = linkedKind(full);
    if (kind === 'file') yield relative;
    if (kind !== 'folder') continue;
    const real = realpathSync(full);
    if (ancestors.has(real)) continue;
    yield* walk(full, `${relative}/`, new Set([...ancestors, real]));
  }
}

/** What a symbolic link points at; null when it points nowhere (a dangling link serves nothing). */
function linkedKind(link: string): 'file' | 'folder' | null {
  try {
    const stats = statSync(link);
    return stats.isFile() ? 'file' : stats.isDirectory() ? 'folder' : null;
  } catch {
    return null;
  }
}
