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
  writeFileSync(path.join(dist, 'required-server-files.json'), JSON.stringify({ config: { env: inlined } }));
  return root;
}
