// What the build steps after `next build` read of a build (scripts/error-pages.ts,
// scripts/service-worker.ts), written into a temporary folder: its id, its manifest and stylesheet,
// and the values `next build` inlined (which lib/server/build-output.ts reads back).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export const FAKE_CSS = '.es-main{color:#0b0c0c}';

/** A folder holding a `.next` build; returns the folder. */
export function fakeBuild(prefix: string, inlined: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  const dist = path.join(root, '.next');
  mkdirSync(path.join(dist, 'static/css'), { recursive: true });
  writeFileSync(path.join(dist, 'BUILD_ID'), 'build-42\n');
  writeFileSync(path.join(dist, 'static/css/app.css'), FAKE_CSS);
  writeFileSync(
    path.join(dist, 'build-manifest.json'),
    JSON.stringify({ pages: { '/_app': ['static/chunks/app.js', 'static/css/app.css'] } }),
  );
  // The 404 Next prerenders (pages/404.tsx in the default language), its head trimmed.
  mkdirSync(path.join(dist, 'server/pages'), { recursive: true });
  writeFileSync(
    path.join(dist, 'server/pages/404.html'),
    '<!DOCTYPE html><html lang="en" dir="ltr"><head><title data-next-head="">Page not found – x</title>' +
      '<link rel="stylesheet" href="/_next/static/css/app.css"/></head><body><div id="__next"><main>Page not found</main></div></body></html>',
  );
  // As a build with the default languages inlines them (lib/config/build-time.ts).
  const env = { APP_SCREEN_LANGUAGES: 'en,fr,de,es,ar', APP_SCREEN_DEFAULT_LANGUAGE: 'en', ...inlined };
  writeFileSync(path.join(dist, 'required-server-files.json'), JSON.stringify({ config: { env } }));
  return root;
}
