// The production build ships no fixture route (a page that throws on purpose) and every one of the
// shell's own routes; any other route is a product's, and ships as it is. Read from the built
// manifests; that no fixture file can become a route at all is checked without a build
// (unit/pages/route-files.test.ts).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildUnlessKept, plannedEnv } from '../support/builds';
import { FIXTURE_DIST, PRODUCTION_DIST, ROOT } from '../support/paths';
import {
  isFixtureFile,
  PAGES_DIR,
  pageExtensions,
  pageFiles,
  routeOf,
  SHELL_ROUTES,
} from '../support/route-files';

beforeAll(() => {
  buildUnlessKept(PRODUCTION_DIST, plannedEnv(PRODUCTION_DIST));
  buildUnlessKept(FIXTURE_DIST, plannedEnv(FIXTURE_DIST));
}, 600_000);

function readJson(distDir: string, file: string) {
  return JSON.parse(readFileSync(path.join(ROOT, distDir, file), 'utf8'));
}

/** Every route a build knows of, from each manifest that lists routes. */
function routesOf(distDir: string): string[] {
  const pages = Object.keys(readJson(distDir, 'server/pages-manifest.json'));
  const clientPages = Object.keys(readJson(distDir, 'build-manifest.json').pages);
  const routes = readJson(distDir, 'routes-manifest.json');
  const routed = [...routes.staticRoutes, ...routes.dynamicRoutes].map((r: { page: string }) => r.page);
  const prerendered = readJson(distDir, 'prerender-manifest.json');
  return [
    ...new Set([
      ...pages,
      ...clientPages,
      ...routed,
      ...Object.keys(prerendered.routes),
      ...Object.keys(prerendered.dynamicRoutes),
    ]),
  ].sort();
}

/** The routes of pages/'s fixture files, as the fixture builds route them. */
async function fixtureRoutes(): Promise<string[]> {
  const extensions = pageExtensions(true);
  return (await pageFiles(extensions, PAGES_DIR))
    .filter(isFixtureFile)
    .map((file) => routeOf(file, extensions));
}

/** The fixture routes a build ships: by file, and any route below a `__fixtures__` segment. */
async function fixturesIn(distDir: string): Promise<string[]> {
  const fixtures = await fixtureRoutes();
  return routesOf(distDir).filter((route) => fixtures.includes(route) || /\/__fixtures__(\/|$)/.test(route));
}

/** Whether the project has a proxy (Next 16's middleware) at its root, where Next looks for one. */
const hasProxyFile = () =>
  ['', 'src/'].some((dir) =>
    ['proxy', 'middleware'].some((name) =>
      ['ts', 'js', 'mjs', 'tsx', 'jsx'].some((ext) => existsSync(path.join(ROOT, `${dir}${name}.${ext}`))),
    ),
  );

describe('the production route table', () => {
  it('holds no fixture route', async () => {
    expect(await fixturesIn(PRODUCTION_DIST)).toEqual([]);
  });

  it('holds every one of the shell’s routes: _app, _document, _error, 404 and the three health routes', () => {
    expect(Object.keys(readJson(PRODUCTION_DIST, 'server/pages-manifest.json'))).toEqual(
      expect.arrayContaining(SHELL_ROUTES),
    );
  });

  it('has a proxy only when the project has a root proxy.ts (the shell has none of its own)', () => {
    // Next 16 lists a proxy in one of two manifests: an edge one in the middleware manifest, a
    // Node.js one (the default) in the functions' config.
    const edge = Object.keys(readJson(PRODUCTION_DIST, 'server/middleware-manifest.json').middleware);
    const node = Object.keys(readJson(PRODUCTION_DIST, 'server/functions-config-manifest.json').functions);
    expect(edge.length > 0 || node.includes('/_middleware')).toBe(hasProxyFile());
  });

  it('would catch a fixture route: the fixture build ships every one, and the check finds them', async () => {
    const fixtures = await fixtureRoutes();
    expect(fixtures).toEqual(
      expect.arrayContaining(['/__fixtures__/render-error', '/api/__fixtures__/throws']),
    );
    expect(routesOf(FIXTURE_DIST)).toEqual(expect.arrayContaining(fixtures));
    expect(await fixturesIn(FIXTURE_DIST)).toEqual(expect.arrayContaining(fixtures));
  });
});
