// The files this build serves under /_next/static/, its own and those carried from earlier builds
// (scripts/carry-static.ts), read once at start: a request for one of them goes to Next at the cost
// of one set look-up, and only a request for any other is the fleet's (./stage.ts).
import { filesBelow } from '../files/files-below';

/** Each file's path below static/, written as Next writes it in a URL (each segment encoded). */
export function readOwnFiles(staticFolder: string): Set<string> {
  const files = new Set<string>();
  try {
    for (const file of filesBelow(staticFolder)) files.add(file.split('/').map(encodeURIComponent).join('/'));
  } catch {
    // No static folder (a build without pages): every file is another build's.
  }
  return files;
}
