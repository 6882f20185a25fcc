// Where a build keeps its error pages, below its folder: shared by the build step that writes them
// (scripts/error-pages.ts) and the server that answers with them (lib/server/not-found.ts), which
// must not load React to learn a file name (React's build is chosen when it is first loaded).

/** A language's "Page not found". */
export const notFoundFile = (language: string) => `error-pages/${language}/404.html`;
