// What the build baked into the bundles (release, reporting DSN and tunnel path), read back by the
// running server so it serves the same tunnel the browser bundle was built for.
const fs = require('node:fs');
const path = require('node:path');
const { inlinedReportingEnv, readDsn, readReportingConfig } = require('../config/reporting.js');

/**
 * @typedef {Record<string, string | undefined>} InlinedEnv
 */

/**
 * @param {{ root: string, dev: boolean, env: Record<string, string | undefined>, standaloneConfigPath: string }} options
 * @returns {InlinedEnv}
 */
function readBuildSettings({ root, dev, env, standaloneConfigPath }) {
  // `next dev` builds as it goes, from the current environment.
  if (dev) return inlinedReportingEnv(readReportingConfig(env, { dev: true }));
  try {
    const config = fs.existsSync(standaloneConfigPath)
      ? JSON.parse(fs.readFileSync(standaloneConfigPath, 'utf8'))
      : JSON.parse(
          fs.readFileSync(
            path.join(root, env.NEXT_DIST_DIR || '.next', 'required-server-files.json'),
            'utf8',
          ),
        ).config;
    return config?.env ?? {};
  } catch {
    // No build yet: Next itself says so, clearly, when it prepares.
    return {};
  }
}

/**
 * The DSN the server reports with. SENTRY_DSN at start must be well-formed and, when the build had
 * one, the same one: the tunnel only forwards envelopes for the DSN the browser bundle carries.
 * Unset at start, the build's DSN is used.
 * @param {Record<string, string | undefined>} env
 * @param {InlinedEnv} build
 * @returns {string | null}
 */
function serverDsn(env, build) {
  const atStart = readDsn(env.SENTRY_DSN);
  const atBuild = build.APP_SENTRY_DSN || null;
  if (atStart && atBuild && atStart !== atBuild) {
    throw new Error(
      'Invalid error-reporting configuration: SENTRY_DSN differs from the one this build was made with; rebuild, or start with the same value.',
    );
  }
  return atStart ?? atBuild;
}

module.exports = { readBuildSettings, serverDsn };
