// Whose entries are whose in the shared store: every key and the invalidation channel carry the build
// (Next's build id, or its deploymentId where the build sets one, since Next then gives every build
// the same build id), so during a rolling update an old and a new build share one store and never
// serve each other's HTML. An old build's entries go with their expiry (PAGE_CACHE_TTL_SECONDS).
import { readFileSync } from 'node:fs';
import path from 'node:path';

const PREFIX = 'app-shell:page';

/** The build `serverDistDir` (`<distDir>/server`) belongs to, by the name the fleet knows it. */
export function buildNamespace(serverDistDir: string): string {
  const distDir = path.dirname(serverDistDir);
  const buildId = readFileSync(path.join(distDir, 'BUILD_ID'), 'utf8').trim();
  let deploymentId: unknown;
  try {
    deploymentId = JSON.parse(readFileSync(path.join(distDir, 'required-server-files.json'), 'utf8')).config
      .deploymentId;
  } catch {
    // No file, no JSON, no config in it: no deploymentId (a step missing throws, and lands here).
  }
  return typeof deploymentId === 'string' && deploymentId !== '' ? `dpl-${deploymentId}` : buildId;
}

/** The store's key of Next's cache key `key` in the build `namespace`. */
export function storeKey(namespace: string, key: string): string {
  return `${PREFIX}:${namespace}:${key}`;
}

/** The channel on which the instances of the build `namespace` tell each other what they wrote. */
export function channelName(namespace: string): string {
  return `${PREFIX}:${namespace}:written`;
}
