// Which source files are the shell's own, in a tree that may hold a product too: what the shell's
// entries (its pages, its server and workers, its config and its commands) import, followed through
// the import graph. A product's files are neither listed nor guessed: a file the shell does not
// import is the product's, and so is each file the shell hands over to the product to fill.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { reachedFrom } from './import-graph';
import { SOURCE_ROOT } from './paths';
import { routeOf, SHELL_ROUTES } from './route-files';

/**
 * The files the shell ships for a product to fill (docs/operations.md, "Health"): the shell's copy
 * is an empty registration, and what a product writes there (and imports from there) is its own.
 */
export const PRODUCT_FILLS = [path.join('lib', 'health', 'dependencies.ts')];

/** The shell's next.config: beneath a product's own config (shell.next.config.ts), or the root one. */
export function shellConfigFile(root = SOURCE_ROOT): string {
  return existsSync(path.join(root, 'shell.next.config.ts')) ? 'shell.next.config.ts' : 'next.config.ts';
}

function filesUnder(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((file) => /\.(ts|tsx|js|cjs)$/.test(file) && !file.includes('__fixtures__'))
    .map((file) => path.join(dir, file));
}

/** The entries the shell starts from: its own pages, the server build's entries, config, commands. */
export function shellEntries(root = SOURCE_ROOT): string[] {
  const pages = filesUnder(root, 'pages').filter((file) =>
    SHELL_ROUTES.includes(
      routeOf(`/${path.relative('pages', file).split(path.sep).join('/')}`, ['tsx', 'ts']),
    ),
  );
  // tsconfig.server.json is JSON with comments, read as TypeScript reads it.
  const { include } = ts.readConfigFile(path.join(root, 'tsconfig.server.json'), ts.sys.readFile).config as {
    include: string[];
  };
  const server = include.map((file) => path.join(...file.split('/')));
  // The files the config hands webpack as entries of their own (the reporting files), by path.
  const config = shellConfigFile(root);
  const named = [
    ...readFileSync(path.join(root, config), 'utf8').matchAll(/path\.join\(__dirname, '([^']+)'\)/g),
  ]
    .map((match) => path.join(...match[1]!.split('/')))
    // Not the compiled server in dist/ (the page cache's handler): its sources are entries above.
    .filter(
      (file) =>
        /\.(ts|tsx|js)$/.test(file) &&
        !file.startsWith(`dist${path.sep}`) &&
        existsSync(path.join(root, file)),
    );
  return [...pages, ...server, ...filesUnder(root, 'scripts'), config, ...named, 'instrumentation.ts'];
}

/** Every source file of the shell's own (relative to the root): its entries and what they import. */
export function shellSources(root = SOURCE_ROOT): string[] {
  const entries = shellEntries(root);
  const leaveOut = (file: string) => PRODUCT_FILLS.includes(file);
  const reached = new Set<string>();
  for (const runtime of ['nodejs', 'edge', undefined] as const)
    for (const file of reachedFrom(root, entries, runtime, leaveOut).files.keys()) reached.add(file);
  return [...reached].filter((file) => /\.(ts|tsx|js|cjs|mjs)$/.test(file)).sort();
}
