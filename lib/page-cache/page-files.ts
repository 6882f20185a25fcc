// The page cache's folders of files, read and written by Next's own file-system cache, so a page is
// laid out and read back exactly as Next lays out and reads its own (HTML, data, metadata; the build's
// prerendered pages found by the route-cache key Next checks them against):
//   - the build's prerendered pages, read only: Next is never let write into `.next/server`, which
//     the shipped Deployment mounts read-only (readOnlyRootFilesystem);
//   - the writable cache folder, when there is no store: `<distDir>/cache/`, the Deployment's emptyDir.
import { accessSync, constants, mkdirSync } from 'node:fs';
import path from 'node:path';
import FileSystemCache from 'next/dist/server/lib/incremental-cache/file-system-cache';
import type { CacheFs } from 'next/dist/shared/lib/utils';
import type { CacheEntry } from './codec';
import type { CacheContext, PageFiles } from './page-cache';

type NextGet = FileSystemCache['get'];
type NextSet = FileSystemCache['set'];

function pageFiles(cache: FileSystemCache, writes: boolean): PageFiles {
  return {
    get: async (key, context) =>
      (await cache.get(key, context as unknown as Parameters<NextGet>[1])) as CacheEntry | null,
    ...(writes
      ? {
          set: (key: string, value: unknown, context: CacheContext) =>
            cache.set(key, value as Parameters<NextSet>[1], context as unknown as Parameters<NextSet>[2]),
        }
      : {}),
  };
}

/** The build's prerendered pages, as Next reads them; nothing is written (`flushToDisk: false`). */
export function buildPages(fs: CacheFs, serverDistDir: string): PageFiles {
  // No memory of Next's own (0): ./local-layer.ts is the one, and Next's is shared by every copy.
  return pageFiles(
    new FileSystemCache({
      fs,
      serverDistDir,
      flushToDisk: false,
      maxMemoryCacheSize: 0,
      revalidatedTags: [],
      _requestHeaders: {},
    }),
    false,
  );
}

/** The writable cache folder of this build's pages, made if missing; null when it cannot be written. */
export function cacheFolderPages(
  fs: CacheFs,
  folder: string,
): { files: PageFiles; folder: string } | { files: null; error: unknown } {
  try {
    mkdirSync(folder, { recursive: true });
    accessSync(folder, constants.W_OK);
  } catch (error) {
    return { files: null, error };
  }
  return {
    folder,
    files: pageFiles(
      new FileSystemCache({
        fs,
        serverDistDir: folder,
        flushToDisk: true,
        maxMemoryCacheSize: 0,
        revalidatedTags: [],
        _requestHeaders: {},
      }),
      true,
    ),
  };
}

/** Where the writable folder of the build `namespace` is: under Next's own cache folder. */
export function cacheFolderOf(serverDistDir: string, namespace: string): string {
  return path.join(path.dirname(serverDistDir), 'cache', 'app-shell-pages', namespace);
}
