// The files of public/, read once at start: Next serves each under its own path, and each is a
// route of its own in the request metrics (lib/metrics/http-route.ts).
import path from 'node:path';
import { filesBelow } from '../files/files-below';

/** More than this many files and the rest count under one route: the label set stays bounded. */
export const MAX_PUBLIC_ROUTES = 200;

/**
 * `/favicon.ico`, `/robots.txt`…; an empty set when there is no public/ folder. At most `limit`:
 * the metrics' routes take the first MAX_PUBLIC_ROUTES, the "Page not found" stage every one.
 */
export function readPublicFiles(root: string, limit = MAX_PUBLIC_ROUTES): ReadonlySet<string> {
  const files = new Set<string>();
  try {
    for (const file of filesBelow(path.join(root, 'public'))) {
      if (files.size >= limit) break;
      files.add(`/${file}`);
    }
  } catch {
    // No public/ folder: every file request is a 404.
  }
  return files;
}
