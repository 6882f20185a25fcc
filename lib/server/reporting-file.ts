// The browser's reporting code is one file per build, named by its build id
// (`reporting-<id>.js`, next.config.ts) so it can be cached forever. A page of the previous build
// asks for its own file when it is idle, which can be after a new build has replaced it (a deploy
// in the page's first seconds, or a page the browser restores from its cache); that file is gone,
// and every error the page throws would be lost with it. The server answers such a request with a
// redirect to the current build's file instead: the page hands its errors to whichever file
// announces itself (lib/reporting/browser/reporter.ts), and that handshake is the same in every
// build. A sampled visitor's file (`reporting-tracing-<id>.js`, the same with tracing) goes to the
// current build's tracing file, or to its plain one when the current build traces nothing.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { assetUrl } from '../config/asset-urls';
import { servedPrefixes, withoutPrefix } from '../fleet/names';
import { builtConfigText, parseBuiltConfig } from './build-output';

/** Another build's reporting file: the names next.config.ts gives them, with a build id of Next's alphabet. */
const REPORTING_FILE = /^\/_next\/static\/chunks\/reporting-[A-Za-z0-9_-]{1,64}\.js$/;
const TRACING_FILE = /^\/_next\/static\/chunks\/reporting-tracing-/;

/**
 * Where a request for another build's reporting file is sent: the current build's file, or null
 * to let Next answer (the current file itself, any other path). Null as a whole when this build has
 * no reporting file (no DSN) or no build id to read (`npm run dev`).
 */
export function reportingFileRedirect(
  root: string,
  distDir: string,
): ((pathname: string) => string | null) | null {
  let buildId: string;
  try {
    buildId = readFileSync(path.join(root, distDir, 'BUILD_ID'), 'utf8').trim();
  } catch {
    return null;
  }
  const served = (file: string) =>
    existsSync(path.join(root, distDir, 'static', 'chunks', file)) ? `/_next/static/chunks/${file}` : null;
  const current = served(`reporting-${buildId}.js`);
  if (!current) return null;
  const currentTracing = served(`reporting-tracing-${buildId}.js`) ?? current;
  // Pages ask for them under the build's basePath or assetPrefix, with its `?dpl=`, and are sent
  // to this build's the same way (lib/config/asset-urls.ts).
  const config = parseBuiltConfig(builtConfigText(root, distDir)) ?? {};
  const prefixes = servedPrefixes(config.basePath, config.assetPrefix);
  const asked = (local: string) => assetUrl(config, local.slice('/_next/'.length));
  return (pathname) => {
    const local = withoutPrefix(pathname, prefixes);
    if (local === current || local === currentTracing || !REPORTING_FILE.test(local)) return null;
    return asked(TRACING_FILE.test(local) ? currentTracing : current);
  };
}
