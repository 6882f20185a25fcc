// Which release a build is: one value for browser and server events and for health's releaseId.
// Resolved once, at build time (lib/config/build-time.ts); everything else reads the build's value
// through lib/config/build-values.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readVariable, type Env } from './variables';

function gitCommit(root: string): string | undefined {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    const commit = out.toString().trim();
    return /^[0-9a-f]{40}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined; // no git, or not a checkout (a container build, a tarball)
  }
}

export function packageVersion(root: string): string {
  const { version } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    version: string;
  };
  return version;
}

/** SENTRY_RELEASE, else the git commit of `root`, else the package version. */
export function resolveRelease(env: Env, root: string): string {
  const explicit = readVariable('sentryRelease', env, []);
  if (explicit) return explicit;
  return gitCommit(root) ?? packageVersion(root);
}
