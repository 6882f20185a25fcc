// A step of `npm run build`, after the balancer's pages: writes the service worker's script
// (lib/service-worker/script.ts), once per language offered, to <distDir>/service-worker/<language>.js,
// which the server answers at WORKER_PATH in the visitor's language. It differs with every build (the build's id and time are in it), so browsers take the
// new one on the next visit. With SERVICE_WORKER=off it is the worker that unregisters itself.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Env, readVariable } from '../lib/config/variables';
import { adoptBuildValues } from '../lib/server/build-output';
import { workerFile } from '../lib/service-worker/serve';
import { copyIn } from '../lib/screens/languages';
import { offeredLanguages } from '../lib/language/offered';
import { buildStylesheet } from './error-pages';

const ROOT = path.resolve(__dirname, '../..');

/** Writes the script; returns the line `npm run build` prints. */
export async function writeServiceWorker(
  root = ROOT,
  env: Env = process.env,
  compiledFolder?: string,
  now = Date.now(),
): Promise<string> {
  const problems: string[] = [];
  const distDir = readVariable('distDir', env, problems);
  const on = readVariable('serviceWorker', env, problems) === 'on';
  if (problems.length > 0) throw new Error(problems.join('; '));
  adoptBuildValues({ root, dev: false, distDir });
  // Loaded after them: the screens read their settings (lib/config/site.ts) when first loaded.
  const [{ readCompiled, workerScript }, { screenMarkup: markup }] = await Promise.all([
    import('../lib/service-worker/script'),
    import('../components/error-screen/markup'),
  ]);
  const build = { id: readFileSync(path.join(root, distDir, 'BUILD_ID'), 'utf8').trim(), time: now };
  const compiled = readCompiled(compiledFolder);
  const css = on ? buildStylesheet(root, distDir) : '';
  const sizes: string[] = [];
  for (const language of offeredLanguages()) {
    const text = workerScript({ on, build, compiled, css, language: copyIn(language), markup });
    const file = path.join(root, distDir, workerFile(language));
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, text);
    sizes.push(`${language} ${Buffer.byteLength(text)}`);
  }
  const what = on ? 'offline and unavailable screens' : 'SERVICE_WORKER=off: it unregisters itself';
  return `Service worker: ${distDir}/${workerFile('<language>')} (bytes: ${sizes.join(', ')}; ${what}).`;
}

if (require.main === module) {
  writeServiceWorker().then(
    (line) => console.log(line),
    (error: unknown) => {
      console.error(`Service worker not written: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
