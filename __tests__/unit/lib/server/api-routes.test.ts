import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readApiRoutes } from '../../../../lib/server/api-routes';

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'api-routes-'));
  mkdirSync(path.join(root, '.build'));
  // The shape `next build` writes (the regexes are Next's own for these pages).
  writeFileSync(
    path.join(root, '.build/routes-manifest.json'),
    JSON.stringify({
      staticRoutes: [
        { page: '/404', regex: '^/404(?:/)?$' },
        { page: '/api/health', regex: '^/api/health(?:/)?$' },
        // pages/api/index.ts
        { page: '/api', regex: '^/api(?:/)?$' },
        // A page whose name only starts like the folder.
        { page: '/apiary', regex: '^/apiary(?:/)?$' },
        { page: '/about', regex: '^/about(?:/)?$' },
      ],
      dynamicRoutes: [
        { page: '/api/orders/[id]', regex: '^/api/orders/([^/]+?)(?:/)?$' },
        { page: '/posts/[slug]', regex: '^/posts/([^/]+?)(?:/)?$' },
      ],
    }),
  );
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('readApiRoutes', () => {
  it('matches the build’s API routes, static and dynamic, and nothing else', () => {
    const isApiRoute = readApiRoutes(root, '.build')!;
    expect(isApiRoute('/api/health')).toBe(true);
    expect(isApiRoute('/api')).toBe(true);
    expect(isApiRoute('/apiary')).toBe(false);
    expect(isApiRoute('/api/health/')).toBe(true);
    expect(isApiRoute('/api/orders/42')).toBe(true);
    expect(isApiRoute('/api/%68ealth')).toBe(true);
    expect(isApiRoute('/api/nope')).toBe(false);
    expect(isApiRoute('/api/orders/42/items')).toBe(false);
    expect(isApiRoute('/api/%E0%A4%A')).toBe(false);
    // Pages are not API routes.
    expect(isApiRoute('/about')).toBe(false);
  });

  it('is null without a build to read (npm run dev)', () => {
    expect(readApiRoutes(root, '.missing')).toBeNull();
  });
});
