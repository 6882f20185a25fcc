// Which paths the build's API routes answer, read once from the routes manifest `next build`
// writes, so an unknown /api/* path gets a JSON 404 (lib/http/problem.ts) instead of the HTML
// "Page not found" screen, without a catch-all route in pages/api/ (which holds only health).
import { readFileSync } from 'node:fs';
import path from 'node:path';

interface ManifestRoute {
  page: string;
  regex: string;
}

/** A path's segments decoded as Next decodes them before matching; the raw path when malformed. */
function decodedPath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/**
 * A matcher for the build's API routes, static and dynamic (`/api/orders/[id]`), or null when there
 * is no manifest to read (`npm run dev` builds routes as they are asked for: Next answers there).
 */
export function readApiRoutes(root: string, distDir: string): ((pathname: string) => boolean) | null {
  let routes: ManifestRoute[];
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, distDir, 'routes-manifest.json'), 'utf8')) as {
      staticRoutes?: ManifestRoute[];
      dynamicRoutes?: ManifestRoute[];
    };
    routes = [...(manifest.staticRoutes ?? []), ...(manifest.dynamicRoutes ?? [])];
  } catch {
    return null;
  }
  const patterns = routes
    .filter((route) => route.page === '/api' || route.page.startsWith('/api/'))
    .map((route) => new RegExp(route.regex));
  return (pathname) => {
    const decoded = decodedPath(pathname);
    return patterns.some((pattern) => pattern.test(pathname) || pattern.test(decoded));
  };
}
