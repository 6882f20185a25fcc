// The rooms import one way (docs/module-boundaries.md, "Rooms that import one way"): lib/ draws
// nothing, so it imports nothing from components/ or pages/; no two files import each other, directly
// or around a circle; and no two folders do. The graph is dependency-cruiser's, read from the source
// with TypeScript's own pre-processing, so a type-only import counts as much as any other.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from '../../support/paths';

interface Dependency {
  resolved: string;
  coreModule: boolean;
  couldNotResolve: boolean;
  dependencyTypes: string[];
}
interface Module {
  source: string;
  dependencies: Dependency[];
}

/** The app's own files and what each imports of the app's own files. */
function importGraph(): Map<string, string[]> {
  const text = execFileSync(
    process.execPath,
    [
      path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs'),
      'lib',
      'components',
      'pages',
      'scripts',
      '--no-config',
      '--ts-pre-compilation-deps',
      '--ts-config',
      'tsconfig.json',
      '--do-not-follow',
      'node_modules',
      '--exclude',
      '^node_modules',
      '--output-type',
      'json',
    ],
    { cwd: ROOT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  const { modules } = JSON.parse(text) as { modules: Module[] };
  const graph = new Map<string, string[]>();
  for (const { source, dependencies } of modules) {
    if (source.startsWith('node_modules/')) continue;
    graph.set(
      source,
      dependencies
        .filter(
          (each) => !each.coreModule && !each.couldNotResolve && !each.resolved.startsWith('node_modules/'),
        )
        .map((each) => each.resolved),
    );
  }
  return graph;
}

/**
 * The groups of nodes that reach each other (Tarjan's strongly connected components), those of
 * more than one node: each is a circle, or several.
 */
function circles(edges: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) found.push(group.sort());
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Whether `inner` is `outer` or inside it: a folder holds its own subfolders (lib/screens/en/). */
const within = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);

/** The folders' graph: an edge for each import between two folders, neither inside the other. */
function folderGraph(files: ReadonlyMap<string, readonly string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, imports] of files) {
    const from = path.posix.dirname(file);
    for (const imported of imports) {
      const to = path.posix.dirname(imported);
      if (within(from, to) || within(to, from)) continue;
      if (!folders.has(from)) folders.set(from, new Set());
      folders.get(from)!.add(to);
    }
  }
  return new Map([...folders].map(([folder, to]) => [folder, [...to]]));
}

/** Each import between two folders of a circle, as `file -> file`, for a failure that says where. */
function importsWithin(files: ReadonlyMap<string, readonly string[]>, group: readonly string[]): string[] {
  const inGroup = (file: string) => group.includes(path.posix.dirname(file));
  return [...files].flatMap(([file, imports]) =>
    inGroup(file)
      ? imports
          .filter(
            (imported) => inGroup(imported) && path.posix.dirname(imported) !== path.posix.dirname(file),
          )
          .map((imported) => `${file} -> ${imported}`)
      : [],
  );
}

describe('the rooms of the app', () => {
  let files: Map<string, string[]>;
  beforeAll(() => {
    files = importGraph();
  });

  it('reads the whole source: every room, type-only imports among the edges', () => {
    for (const room of [
      'lib/server',
      'lib/screens',
      'lib/reporting/ingest',
      'components/error-screen',
      'pages',
    ])
      expect([...files.keys()].some((file) => file.startsWith(`${room}/`))).toBe(true);
    // A type-only import (ScreenCopy's) is an edge like any other.
    expect(files.get('lib/language/browser-copy.ts')).toContain('lib/screens/types.ts');
    expect(files.get('components/error-screen/markup.tsx')).toContain('lib/error-pages/static-screen.ts');
  });

  it('keeps lib/ from importing components/ or pages/: the screens are drawn by their callers', () => {
    const upward = [...files].flatMap(([file, imports]) =>
      file.startsWith('lib/')
        ? imports.filter((each) => /^(components|pages)\//.test(each)).map((each) => `${file} -> ${each}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('keeps components/ from importing pages/', () => {
    const upward = [...files].flatMap(([file, imports]) =>
      file.startsWith('components/')
        ? imports.filter((each) => each.startsWith('pages/')).map((each) => `${file} -> ${each}`)
        : [],
    );
    expect(upward).toEqual([]);
  });

  it('has no circle of files', () => {
    expect(circles(files)).toEqual([]);
  });

  it('has no circle of folders', () => {
    const found = circles(folderGraph(files));
    expect(found.map((group) => ({ folders: group, imports: importsWithin(files, group) }))).toEqual([]);
  });
});

describe('what finds a circle', () => {
  const graph = (entries: Record<string, string[]>) => new Map(Object.entries(entries));

  it('finds two files importing each other, and one around three, and nothing in a line', () => {
    expect(circles(graph({ a: ['b'], b: ['a'] }))).toEqual([['a', 'b']]);
    expect(circles(graph({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] }))).toEqual([['a', 'b', 'c']]);
    expect(circles(graph({ a: ['b'], b: ['c'], c: [] }))).toEqual([]);
  });

  it('sees two folders importing each other through different files, and not a folder and its own subfolder', () => {
    const folders = folderGraph(
      graph({
        'lib/http/a.ts': ['lib/language/b.ts'],
        'lib/language/c.ts': ['lib/http/d.ts'],
        'lib/screens/languages.ts': ['lib/screens/en/index.ts'],
        'lib/screens/en/index.ts': ['lib/screens/types.ts'],
      }),
    );
    expect(circles(folders)).toEqual([['lib/http', 'lib/language']]);
  });
});
