// The production server reads back what `next build` baked into the bundles (release, reporting
// DSN and tunnel path), so it serves the tunnel the browser bundle was built for, and so
// lib/config/build-values.ts answers the same values here as inside the bundles.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildTimeEnv } from '../config/build-time';
import type { BuildEnv } from '../config/build-values';

export interface BuildOutput {
  root: string;
  dev: boolean;
  distDir: string;
  /** Written into the container image by scripts/assemble-standalone.sh; absent elsewhere. */
  standaloneConfigPath: string;
}

/** The standalone config's text (the container image), or null elsewhere. */
function standaloneConfig(standaloneConfigPath: string): string | null {
  return existsSync(standaloneConfigPath) ? readFileSync(standaloneConfigPath, 'utf8') : null;
}

/** The build's resolved Next config, or null before the first build. */
function builtConfig(
  { root, distDir }: BuildOutput,
  standalone: string | null,
): { env?: Partial<BuildEnv> } | null {
  try {
    if (standalone !== null) return JSON.parse(standalone);
    const manifest = JSON.parse(readFileSync(path.join(root, distDir, 'required-server-files.json'), 'utf8'));
    return manifest.config ?? null;
  } catch {
    // No build yet: Next itself says so, clearly, when it prepares.
    return null;
  }
}

/**
 * Copies the build's values into process.env. `next dev` builds as it goes, from the current
 * environment, so there they are computed (and checked: a bad value throws one line) instead.
 */
export function adoptBuildValues(output: BuildOutput): void {
  const standalone = output.dev ? null : standaloneConfig(output.standaloneConfigPath);
  const values = output.dev
    ? buildTimeEnv(process.env, { dev: true, root: output.root })
    : (builtConfig(output, standalone)?.env ?? {});
  for (const [name, value] of Object.entries(values)) {
    if (name.startsWith('APP_') && typeof value === 'string') process.env[name] = value;
  }
  // In the container image there is no build tooling to load next.config.js with. Next's own
  // standalone server.js passes the build's resolved config through this variable; so do we.
  if (standalone !== null) process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = standalone;
}
