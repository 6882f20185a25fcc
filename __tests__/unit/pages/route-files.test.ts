// The route guard, without a build: no file of pages/ that throws on purpose (a fixture) can become a
// route of the production build, whatever pages a product adds beside the shell's. Next's own
// matcher decides, with the page extensions next.config gives each build.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import {
  isFixtureFile,
  isRouted,
  PAGES_DIR,
  pageExtensions,
  pageFiles,
  routeOf,
  SHELL_ROUTES,
} from '../../support/route-files';

/** Every file under `dir`, relative and `/`-led, as Next lists page files. */
function everyFile(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map(
      (entry) => `/${path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join('/')}`,
    );
}

const production = pageExtensions(false);
const fixtures = pageExtensions(true);

describe('the production build’s routes', () => {
  it('take no fixture file of pages/: each has an extension only the fixture builds route', async () => {
    const routed = await pageFiles(production);
    expect(routed.filter(isFixtureFile)).toEqual([]);
  });

  it('include each of the shell’s own routes', async () => {
    const routes = (await pageFiles(production)).map((file) => routeOf(file, production));
    expect(routes).toEqual(expect.arrayContaining(SHELL_ROUTES));
  });

  it('would take a fixture named as a product page is (`.tsx`), and any page put in __fixtures__', () => {
    // What a slip looks like: Next would route such a file, and the first check fails on it.
    for (const slip of ['/__fixtures__/render-error.fixture.tsx', '/__fixtures__/helper.tsx']) {
      expect(isRouted(slip, production)).toBe(true);
      expect(isFixtureFile(slip)).toBe(true);
    }
    // A product's pages are no fixtures, whatever their names.
    for (const page of ['/orders/[id].tsx', '/api/fixtures.ts', '/fixture.tsx'])
      expect(isFixtureFile(page)).toBe(false);
  });
});

describe('the fixture builds’ routes', () => {
  it('take every fixture file, so the browser tests serve them and the built check sees them', async () => {
    const files = everyFile(PAGES_DIR).filter(isFixtureFile);
    expect(files.length).toBeGreaterThan(0);
    expect(await pageFiles(fixtures)).toEqual(expect.arrayContaining(files));
  });
});
