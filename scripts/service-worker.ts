// A step of `npm run build`, after the balancer's pages: writes the service worker's script
// (lib/service-worker/script.ts) to <distDir>/service-worker/worker.js, which the server answers at
// WORKER_PATH. It differs with every build (the build's id and time are in it), so browsers take the
// new one on the next visit. With SERVICE_WORKER=off it is the worker that unregisters itself.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Env, readVariable } from '../lib/config/variables';
import { adoptBuildValues } from '../lib/server/build-output';
import { WORKER_FILE } from '../lib/service-worker/serve';
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
  const { readCompiled, workerScript } = await import('../lib/service-worker/script');
  const text = workerScript({
    on,
    build: { id: readFileSync(path.join(root, distDir, 'BUILD_ID'), 'utf8').trim(), time: now },
    compiled: readCompiled(compiledFolder),
    css: on ? buildStylesheet(root, distDir) : '',
  });
  const file = path.join(root, distDir, WORKER_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  const what = on ? 'offline and unavailable screens' : 'SERVICE_WORKER=off: it unregisters itself';
  return `Service worker: ${distDir}/${WORKER_FILE} (${Buffer.byteLength(text)} bytes, ${what}).`;
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
