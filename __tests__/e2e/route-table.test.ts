// The production build must hold no page or API route beyond the shell's own: fixture pages and
// anything else that throws on purpose must never ship.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURE_DIST, PRODUCTION_DIST, ROOT } from '../support/paths';

// The shell's pages and its three static health routes: overall, live and ready.
const ALLOWED = [
  '/404',
  '/_app',
  '/_document',
  '/_error',
  '/api/health',
  '/api/health/live',
  '/api/health/ready',
];

function readJson(distDir: string, file: string) {
  return JSON.parse(readFileSync(path.join(ROOT, distDir, file), 'utf8'));
}

/** Every route a build knows of, from each manifest that lists routes. */
function routesOf(distDir: string): string[] {
  const pages = Object.keys(readJson(distDir, 'server/pages-manifest.json'));
  const clientPages = Object.keys(readJson(distDir, 'build-manifest.json').pages);
  const routes = readJson(distDir, 'routes-manifest.json');
  const routed = [...routes.staticRoutes, ...routes.dynamicRoutes].map((r: { page: string }) => r.page);
  const prerendered = Object.keys(readJson(distDir, 'prerender-manifest.json').routes);
  return [...new Set([...pages, ...clientPages, ...routed, ...prerendered])].sort();
}

function unexpected(distDir: string): string[] {
  return routesOf(distDir).filter((route) => !ALLOWED.includes(route));
}

describe('the production route table', () => {
  it('holds only _app, _document, _error, 404 and the three health routes', () => {
    expect(unexpected(PRODUCTION_DIST)).toEqual([]);
    expect(Object.keys(readJson(PRODUCTION_DIST, 'server/pages-manifest.json')).sort()).toEqual(ALLOWED);
  });

  it('has no middleware or proxy', () => {
    const middleware = readJson(PRODUCTION_DIST, 'server/middleware-manifest.json');
    expect(Object.keys(middleware.middleware)).toEqual([]);
  });

  it('would catch a stray page: the fixture build fails the same check', () => {
    expect(unexpected(FIXTURE_DIST)).toEqual(
      expect.arrayContaining(['/__fixtures__/render-error', '/__fixtures__/server-error']),
    );
  });
});
