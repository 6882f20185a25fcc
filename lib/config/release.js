// Which release this build is: one value for browser and server events and for health's releaseId.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '../..');

/** @returns {string | undefined} */
function gitCommit() {
  try {
    const out = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    const commit = out.toString().trim();
    return /^[0-9a-f]{40}$/.test(commit) ? commit : undefined;
  } catch {
    return undefined; // no git, or not a checkout (a container build, a tarball)
  }
}

/**
 * SENTRY_RELEASE, else the git commit, else the package version. Called once, at build time.
 * @param {Record<string, string | undefined>} [env]
 */
function resolveRelease(env = process.env) {
  const explicit = env.SENTRY_RELEASE?.trim();
  if (explicit) return explicit;
  return gitCommit() ?? `${packageVersion()}`;
}

function packageVersion() {
  return /** @type {{ version: string }} */ (require('../../package.json')).version;
}

module.exports = { resolveRelease, packageVersion };
