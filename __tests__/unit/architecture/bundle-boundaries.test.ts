// The server's own code stays out of the bundles webpack makes for pages and for the edge runtime,
// in `npm run dev` as in a build (docs/module-boundaries.md). A `node:` module in such a bundle
// fails its compile, and the dev server then answers 500 to every page.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { reachedFrom, type Reached } from '../../support/import-graph';
import { ROOT } from '../../support/paths';

/** Folders that hold the server's own code: the ingest's, its reporting transport, the queue, the tunnel, the server. */
const SERVER_ONLY = [
  'lib/reporting/ingest/',
  'lib/reporting/node/',
  'lib/reporting/queue/',
  'lib/reporting/tunnel/',
  'lib/server/',
  'lib/management/',
  // The worker's script as the build makes it and the server answers it (the pages register it by path).
  'lib/service-worker/script.ts',
  'lib/service-worker/serve.ts',
];

/** Every route file a page bundle starts from: pages/ but for pages/api/ (server-only), fixtures included. */
function pageFiles(): string[] {
  return readdirSync(path.join(ROOT, 'pages'), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)))
    .filter((file) => !file.startsWith(`pages${path.sep}api${path.sep}`));
}

/** What the graph reaches that it must not, each as its import trace (entry first), like webpack's. */
function forbidden({ files, modules }: Reached): string[] {
  const traces: string[] = [];
  for (const [file, chain] of files)
    if (SERVER_ONLY.some((folder) => file.split(path.sep).join('/').startsWith(folder)))
      traces.push(chain.join(' → '));
  for (const [name, chain] of modules) if (name.startsWith('node:')) traces.push(chain.join(' → '));
  return traces;
}

describe('a page bundle (browser and server alike)', () => {
  const reached = reachedFrom(ROOT, pageFiles(), undefined);

  it('reaches none of the server’s own code and no node: module', () => {
    expect(forbidden(reached)).toEqual([]);
  });

  it('is walked through the shell’s own modules (the check sees the pages’ real graph)', () => {
    expect(reached.files.has(path.join('lib', 'reporting', 'browser', 'reporter.ts'))).toBe(true);
    expect(reached.files.has(path.join('components', 'error-screen', 'ErrorScreen.tsx'))).toBe(true);
    expect(reached.files.has(path.join('lib', 'service-worker', 'register.ts'))).toBe(true);
  });
});

describe('the service worker and its screens’ script', () => {
  // The build turns each compiled file into a script of its own (lib/service-worker/script.ts):
  // anything it imported at run time would be missing there.
  it.each(['worker.ts', 'come-back.ts'])('%s imports nothing at run time (types only)', (file) => {
    const entry = path.join('lib', 'service-worker', file);
    const reached = reachedFrom(ROOT, [entry], undefined);
    expect([...reached.files.keys()]).toEqual([entry]);
    expect([...reached.modules.keys()]).toEqual([]);
  });
});

describe('instrumentation.ts', () => {
  it('reaches none of the server’s own code in the edge copy `npm run dev` compiles', () => {
    expect(forbidden(reachedFrom(ROOT, ['instrumentation.ts'], 'edge'))).toEqual([]);
  });

  it('reaches the server’s reporter on Node.js (the check follows what the edge copy leaves out)', () => {
    const reached = reachedFrom(ROOT, ['instrumentation.ts'], 'nodejs');
    expect(reached.files.has(path.join('lib', 'reporting', 'node', 'reporter.ts'))).toBe(true);
    expect(forbidden(reached)).not.toEqual([]);
  });
});

describe('the production server’s start', () => {
  // React picks its development or production build when first loaded, from NODE_ENV, which the
  // server sets to production only once it runs (lib/server/start.ts). A module the server
  // imports at the top that loads React would load its development build, which Next's production
  // renderer then fails to render with ("dispatcher.getOwner is not a function": every error screen
  // a 500 with no words).
  it('loads no React before it has set NODE_ENV: its static imports reach none', () => {
    const source = readFileSync(path.join(ROOT, 'lib/server/start.ts'), 'utf8');
    const staticImports = [...source.matchAll(/^import (?!type )[^;]*? from '(\.[^']+)';$/gms)].map(
      ([, specifier]) => path.join('lib', 'server', `${specifier}.ts`),
    );
    expect(staticImports.length).toBeGreaterThan(10);
    const reached = reachedFrom(ROOT, staticImports, 'nodejs');
    const react = [...reached.modules.keys()].filter((name) => /^react(-dom)?(\/|$)/.test(name));
    const components = [...reached.files.keys()].filter((file) => file.endsWith('.tsx'));
    expect([...react, ...components]).toEqual([]);
  });
});
