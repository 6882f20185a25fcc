// The source maps a build kept (<dist>/sourcemaps/), by the debug ID each carries: what an upload
// gives Sentry, and what its symbolicator looks maps up by.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** debug ID → absolute path of the map, for every map under `folder`. */
export function mapsByDebugId(folder: string): Map<string, string> {
  const byId = new Map<string, string>();
  for (const file of readdirSync(folder, { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.js.map')) continue;
    const map = JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as {
      debug_id?: string;
      debugId?: string;
    };
    const id = map.debug_id ?? map.debugId;
    if (id) byId.set(id, path.join(folder, file));
  }
  return byId;
}
