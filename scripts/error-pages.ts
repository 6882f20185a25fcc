// A step of `npm run build`, last: writes the balancer's pages (lib/error-pages/balancer-pages.ts)
// into <distDir>/error-pages/: 502.html, 503.html and 504.html, and the same as HAProxy errorfiles
// (502.http, …). Rendered from the shell's own screen and stylesheet, with the build's settings
// (service name, contact), and no JavaScript.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { unavailable } from '../components/error-screen/copy/unavailable';
import { type Env, readVariable } from '../lib/config/variables';
import { BALANCER_STATUSES, haproxyErrorFile, RETRY_SECONDS } from '../lib/error-pages/balancer-pages';
import { adoptBuildValues } from '../lib/server/build-output';

const ROOT = path.resolve(__dirname, '../..');

/** The stylesheet every page of this build loads (through _app), as one text. */
export function buildStylesheet(root: string, distDir: string): string {
  const manifest = JSON.parse(readFileSync(path.join(root, distDir, 'build-manifest.json'), 'utf8')) as {
    pages: Record<string, string[]>;
  };
  const files = (manifest.pages['/_app'] ?? []).filter((file) => file.endsWith('.css'));
  if (files.length === 0) throw new Error(`no stylesheet for /_app in ${distDir}/build-manifest.json`);
  return files.map((file) => readFileSync(path.join(root, distDir, file), 'utf8')).join('\n');
}

/** Writes the pages; returns the line `npm run build` prints. */
export async function writeErrorPages(root = ROOT, env: Env = process.env): Promise<string> {
  const distDir = readVariable('distDir', env, []);
  // The build's values (service name, contact), which the screen reads when it is first loaded.
  adoptBuildValues({ root, dev: false, distDir });
  // Loaded after them: the screen reads its settings (lib/config/site.ts) when it is loaded.
  const { staticScreenDocument } = await import('../lib/error-pages/static-screen');
  const html = staticScreenDocument({
    copy: unavailable,
    css: buildStylesheet(root, distDir),
    refreshSeconds: RETRY_SECONDS,
  });
  const folder = path.join(root, distDir, 'error-pages');
  mkdirSync(folder, { recursive: true });
  for (const status of BALANCER_STATUSES) {
    writeFileSync(path.join(folder, `${status}.html`), html);
    writeFileSync(path.join(folder, `${status}.http`), haproxyErrorFile(status, html));
  }
  return `Balancer pages: ${BALANCER_STATUSES.join(', ')} in ${distDir}/error-pages/ (${Buffer.byteLength(html)} bytes each, no JavaScript).`;
}

if (require.main === module) {
  writeErrorPages().then(
    (line) => console.log(line),
    (error: unknown) => {
      console.error(`Balancer pages not written: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
