// Error-reporting settings: read at build time (inlined into the browser and server bundles) and
// checked again when the server starts. Plain CommonJS: next.config.js and the server load it.
const { resolveRelease } = require('./release.js');

/**
 * @sentry/core takes about 100 ms to load; a server without a DSN never needs it.
 * @returns {typeof import('@sentry/core')}
 */
const sentryCore = () => require('@sentry/core');

/**
 * @typedef {object} ReportingConfig
 * @property {string | null} dsn  Null: no error reporting service; server errors become JSON lines.
 * @property {string} environment
 * @property {string} release
 * @property {string | null} tunnelPath  The same-origin path browsers send envelopes to.
 */

// A single path segment, so it cannot shadow a page folder, and not one of Next's own prefixes.
const TUNNEL_PATH = /^\/[A-Za-z0-9][A-Za-z0-9_-]{2,63}$/;
const RESERVED = ['/api', '/_next', '/404', '/500', '/_error'];

/**
 * @param {string} raw
 * @returns {string} why the DSN is unusable, or '' when it is fine
 */
function dsnProblem(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'it must start with https://';
  if (!url.username) return 'it has no public key (https://KEY@host/PROJECT_ID)';
  if (url.password) return 'it contains a secret key; use the public DSN';
  // Sentry's own parser has the last word on the rest (host, project id).
  return sentryCore().dsnFromString(raw)
    ? ''
    : 'Sentry cannot parse it (expected https://KEY@host/PROJECT_ID)';
}

/** @param {string} problem */
const malformedDsn = (problem) => `SENTRY_DSN is malformed: ${problem}`;

/**
 * SENTRY_DSN on its own, as the server checks it at start: no release to resolve (that would spawn
 * git) and no tunnel path to derive. Throws one line when it is malformed.
 * @param {string | undefined} raw
 * @returns {string | null}
 */
function readDsn(raw) {
  const value = raw?.trim() || '';
  if (!value) return null;
  const problem = dsnProblem(value);
  if (problem) throw new Error(`Invalid error-reporting configuration: ${malformedDsn(problem)}.`);
  return value;
}

/**
 * @param {Record<string, string | undefined>} env
 * @param {{ dev: boolean }} options
 * @returns {ReportingConfig}
 */
function readReportingConfig(env, { dev }) {
  /** @type {string[]} */
  const problems = [];
  const rawDsn = env.SENTRY_DSN?.trim() || '';
  let dsn = null;
  if (rawDsn) {
    const problem = dsnProblem(rawDsn);
    if (problem) problems.push(malformedDsn(problem));
    else dsn = rawDsn;
  }

  const rawTunnel = env.SENTRY_TUNNEL_PATH?.trim() || '';
  let tunnelPath = null;
  if (rawTunnel) {
    if (!TUNNEL_PATH.test(rawTunnel) || RESERVED.includes(rawTunnel.toLowerCase())) {
      problems.push(
        `SENTRY_TUNNEL_PATH must be one path segment of 3-64 letters, digits, - or _, such as /t7q2x (got ${JSON.stringify(rawTunnel)})`,
      );
    } else {
      tunnelPath = rawTunnel;
    }
  } else if (dsn) {
    // Sentry's default: a hash of the DSN, which gives ad-block filter lists nothing to match.
    tunnelPath = sentryCore().getTunnelPath(dsn) ?? null;
  }

  if (problems.length > 0) throw new Error(`Invalid error-reporting configuration: ${problems.join('; ')}.`);
  return {
    dsn,
    environment: env.SENTRY_ENVIRONMENT?.trim() || (dev ? 'development' : 'production'),
    release: resolveRelease(env),
    tunnelPath: dsn ? tunnelPath : null,
  };
}

/**
 * The values the bundles get at build time (next.config.js `env`), all strings.
 * @param {ReportingConfig} config
 */
function inlinedReportingEnv(config) {
  return {
    APP_SENTRY_DSN: config.dsn ?? '',
    APP_SENTRY_ENVIRONMENT: config.environment,
    APP_SENTRY_TUNNEL_PATH: config.tunnelPath ?? '',
    APP_RELEASE: config.release,
  };
}

module.exports = { readDsn, readReportingConfig, inlinedReportingEnv };
