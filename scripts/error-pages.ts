// A step of `npm run build`, after `next build`: writes into <distDir>/error-pages/
// - "Page not found" in each language the build offers (<language>/404.html), made from the one Next
//   prerendered (lib/error-pages/not-found-pages.ts), which the server answers unknown paths with;
// - the balancer's pages (lib/error-pages/balancer-pages.ts): 502.html, 503.html and 504.html, and
//   the same as HAProxy errorfiles (502.http, …), in the default language, and each language's in
//   <language>/ for a balancer that can choose.
// Rendered from the shell's own screen and stylesheet, with the build's settings (service name,
// contact), and no JavaScript.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { copyIn } from '../lib/screens/languages';
import type { LanguageCopy } from '../lib/screens/types';
import { type Env, readVariable } from '../lib/config/variables';
import { BALANCER_STATUSES, haproxyErrorFile, RETRY_SECONDS } from '../lib/error-pages/balancer-pages';
import { notFoundFile } from '../lib/error-pages/paths';
import { defaultLanguage, offeredLanguages } from '../lib/language/offered';
import { adoptBuildValues } from '../lib/server/build-output';

const ROOT = path.resolve(__dirname, '../..');

/** The stylesheet every page of this build loads (through _app), as one text. */
export function buildStylesheet(root: string, distDir: string): string {
  const manifest = JSON.parse(readFileSync(path.join(root, distDir, 'build-manifest.json'), 'utf8')) as {
    pages: Record<string, string[]>;
  };
  const files = manifest.pages['/_app']?.filter((file) => file.endsWith('.css')) ?? [];
  if (files.length === 0) throw new Error(`no stylesheet for /_app in ${distDir}/build-manifest.json`);
  return files.map((file) => readFileSync(path.join(root, distDir, file), 'utf8')).join('\n');
}

/**
 * Where Next prerendered pages/404.tsx: `server/pages/404.html`, or with i18n one per locale, the
 * default locale's at `server/pages/<locale>/404.html`.
 */
export function prerenderedNotFound(root: string, distDir: string): string {
  let locale: string | undefined;
  try {
    const manifest = JSON.parse(readFileSync(path.join(root, distDir, 'routes-manifest.json'), 'utf8')) as {
      i18n?: { defaultLocale?: string } | null;
    };
    locale = manifest.i18n?.defaultLocale;
  } catch {
    // No manifest to read: a build without i18n is what remains, and its file is read below.
  }
  return locale ? `server/pages/${locale}/404.html` : 'server/pages/404.html';
}

/** Writes the pages; returns the line `npm run build` prints. */
export async function writeErrorPages(root = ROOT, env: Env = process.env): Promise<string> {
  const distDir = readVariable('distDir', env, []);
  // The build's values (service name, contact), which the screen reads when it is first loaded.
  adoptBuildValues({ root, dev: false, distDir });
  // Loaded after them: the screen reads its settings (lib/config/site.ts) when it is loaded.
  const [{ staticScreenDocument }, { notFoundDocument }, { screenMarkup: markup }] = await Promise.all([
    import('../lib/error-pages/static-screen'),
    import('../lib/error-pages/not-found-pages'),
    import('../components/error-screen/markup'),
  ]);
  const css = buildStylesheet(root, distDir);
  const template = readFileSync(path.join(root, distDir, prerenderedNotFound(root, distDir)), 'utf8');
  const folder = path.join(root, distDir, 'error-pages');
  const balancerPages = (subfolder: string, { common, screens }: LanguageCopy) => {
    const html = staticScreenDocument({
      copy: screens.unavailable,
      words: common,
      css,
      refreshSeconds: RETRY_SECONDS,
      markup,
    });
    mkdirSync(path.join(folder, subfolder), { recursive: true });
    for (const status of BALANCER_STATUSES) {
      writeFileSync(path.join(folder, subfolder, `${status}.html`), html);
      writeFileSync(path.join(folder, subfolder, `${status}.http`), haproxyErrorFile(status, html));
    }
    return Buffer.byteLength(html);
  };
  const notFoundBytes: string[] = [];
  for (const language of offeredLanguages()) {
    const { common, screens } = copyIn(language);
    const html = notFoundDocument(template, screens['not-found'], common, markup);
    mkdirSync(path.join(folder, language), { recursive: true });
    writeFileSync(path.join(root, distDir, notFoundFile(language)), html);
    notFoundBytes.push(`${language} ${Buffer.byteLength(html)}`);
    balancerPages(language, copyIn(language));
  }
  const bytes = balancerPages('', copyIn(defaultLanguage()));
  return [
    `"Page not found" in ${distDir}/error-pages/<language>/404.html (bytes: ${notFoundBytes.join(', ')}; no JavaScript).`,
    `Balancer pages: ${BALANCER_STATUSES.join(', ')} in ${distDir}/error-pages/ (${defaultLanguage()}, ${bytes} bytes each, no JavaScript), and in each language's folder.`,
  ].join('\n');
}

if (require.main === module) {
  writeErrorPages().then(
    (line) => console.log(line),
    (error: unknown) => {
      console.error(`Error pages not written: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
