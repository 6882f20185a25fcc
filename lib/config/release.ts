// Which release a build is: one value for browser and server events and for health's releaseId.
// Resolved once, at build time (lib/config/build-time.ts); everything else reads the build's value
// through lib/config/build-values.ts.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { readVariable, type Env } from './variables';

function gitCommit(root: string): string | null {
  try {
    const out = execFileSync('git', ['rev-parse', '--verify', 'HEAD'], {
      cwd: root,
      // Piped, not printed: outside a checkout, git's complaint is not the build's.
      stdio: 'pipe',
      timeout: 5000,
    });
    // A full hash (40 digits, or 64 in a SHA-256 repository): git exits non-zero when it has none.
    return out.toString().trim() || null;
  } catch {
    return null; // no git, or not a checkout (a container build, a tarball)
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
  // Stryker disable next-line ArrayDeclaration: SENTRY_RELEASE is any text, so it has no problem to keep.
  const explicit = readVariable('sentryRelease', env, []);
  if (explicit) return explicit;
  return gitCommit(root) ?? packageVersion(root);
}
