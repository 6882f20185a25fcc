// Folders of made-up files for the build steps' unit tests.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Writes each of `files` (path under `dir` → content), making the folders it needs. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [file, content] of Object.entries(files)) {
    const full = path.join(dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

/** A new temporary folder (its name starting with `prefix`) holding `files`; returns its path. */
export function folderWith(prefix: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  writeFiles(dir, files);
  return dir;
}
