// Where a browser asks for a build's files, as Next writes their URLs into every page
// (node_modules/next/dist/server/render.js): under the assetPrefix, which Next sets to the basePath
// unless the product sets it (a path, or a CDN's URL), and with `?dpl=<id>` when the product sets a
// deploymentId. next.config.ts names the reporting files so, and the source-map step registers each
// file's debug ID under the URL its frames will carry (scripts/source-maps.ts).

/** The parts of Next's resolved config (next.config's, or the build's read back) that decide it. */
export interface AssetConfig {
  assetPrefix?: string;
  basePath?: string;
  deploymentId?: string;
  supportsImmutableAssets?: boolean;
}

/** What comes before `/_next/` in a build file's URL: a path, a CDN's origin and path, or ''. */
export function assetBase({ assetPrefix, basePath }: AssetConfig): string {
  return (assetPrefix || basePath || '').replace(/\/+$/, '');
}

/** What comes after a build file's name: `?dpl=<id>`, unless the platform serves files immutably. */
export function assetQuery({ deploymentId, supportsImmutableAssets }: AssetConfig): string {
  return deploymentId && !supportsImmutableAssets ? `?dpl=${deploymentId}` : '';
}

/** The URL of `file` (below the build folder, as `static/chunks/a.js`); '' for none. */
export function assetUrl(config: AssetConfig, file: string): string {
  return file ? `${assetBase(config)}/_next/${file}${assetQuery(config)}` : '';
}

/** The one line a build with a CDN's URL in assetPrefix prints (next.config.ts). */
export function cdnAssetPrefixWarning(base: string): string {
  return (
    `assetPrefix ${base} is another origin: the shell's Content-Security-Policy and ` +
    'Cross-Origin-Resource-Policy refuse its scripts and styles, so no page would run. Use a path ' +
    '(assetPrefix: "/assets"), or allow that origin in lib/http/security-headers.ts (docs/security-headers.md).'
  );
}
