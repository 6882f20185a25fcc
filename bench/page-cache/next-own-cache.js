// Preloaded (NODE_OPTIONS=--require) into the shell's server where a bench or a test wants Next's own
// page cache on the shell's build: Next's FileSystemCache handed to Next where a platform hands its
// handler, so the server leaves its own out (lib/page-cache/handler.ts, openPageCache), and Next
// makes it with the very arguments it makes its default one with (IncrementalCache's constructor,
// next/dist/server/lib/incremental-cache/index.js): Next's own cache, memory layer included, at the
// cost of Next's own, with no file to import on each request.
const FileSystemCache = require('next/dist/server/lib/incremental-cache/file-system-cache').default;

const NEXT_HANDLERS = Symbol.for('@next/cache-handlers');
const global = /** @type {{ [NEXT_HANDLERS]?: Record<string, unknown> }} */ (globalThis);
global[NEXT_HANDLERS] = { ...global[NEXT_HANDLERS], FetchCache: FileSystemCache };
