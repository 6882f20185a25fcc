// URLs reported by the route they belong to (`/reset/[token]`), never by their concrete dynamic
// segments, which may themselves be secrets.

export interface ScrubOptions {
  /**
   * The route pattern one of the app's paths belongs to (`/reset/[token]` for `/reset/abc`), so
   * URLs are reported without their concrete dynamic segments. Undefined: the path is kept, scrubbed.
   */
  routeOf?: (pathname: string) => string | undefined;
  /** The app's own origin: only relative URLs and URLs of this origin are the app's routes. */
  origin?: string;
}

const RELATIVE = 'http://relative.invalid';

/** The URL with its path replaced by the route it belongs to, when it is one of the app's paths. */
export function asRoute(url: string, routeOf: ScrubOptions['routeOf'], origin?: string): string {
  if (!routeOf) return url;
  try {
    const parsed = new URL(url, RELATIVE);
    const relative = parsed.origin === RELATIVE;
    if (!relative && parsed.origin !== origin) return url;
    const route = routeOf(parsed.pathname);
    if (!route) return url;
    return `${relative ? '' : parsed.origin}${route}${parsed.search}${parsed.hash}`;
  } catch {
    return url;
  }
}
