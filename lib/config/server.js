// The production server's settings, read from the environment once at start and validated together,
// so a bad deployment fails with one line naming every wrong variable.

/**
 * @typedef {object} ServerConfig
 * @property {number} port
 * @property {string} host
 * @property {number} drainMs  How long to keep serving after SIGTERM while readiness says 503.
 * @property {number} shutdownTimeoutMs  How long in-flight requests may take once we stop accepting.
 * @property {number} keepAliveTimeoutMs
 */

/**
 * @param {Record<string, string | undefined>} env
 * @param {string} name
 * @param {number} fallback
 * @param {{ min: number, max: number }} range
 * @param {string[]} problems
 */
function integer(env, name, fallback, { min, max }, problems) {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < min || value > max) {
    problems.push(`${name} must be a whole number from ${min} to ${max} (got ${JSON.stringify(raw)})`);
    return fallback;
  }
  return value;
}

/**
 * @param {Record<string, string | undefined>} [env]
 * @returns {ServerConfig}
 */
function readServerConfig(env = process.env) {
  /** @type {string[]} */
  const problems = [];
  // Behind a Kubernetes Service, endpoints take a few seconds to forget a terminating pod: keep
  // serving through that window. Elsewhere there is nothing to wait for.
  const defaultDrainMs = env.KUBERNETES_SERVICE_HOST ? 5000 : 0;
  const config = {
    port: integer(env, 'PORT', 3000, { min: 0, max: 65535 }, problems),
    // HOST, not HOSTNAME: Docker and Kubernetes set HOSTNAME to the container's name.
    host: env.HOST?.trim() || '0.0.0.0',
    drainMs: integer(env, 'SHUTDOWN_DRAIN_MS', defaultDrainMs, { min: 0, max: 600_000 }, problems),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, { min: 0, max: 600_000 }, problems),
    // Longer than the idle timeout of common load balancers (60 s), so they close first.
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 65_000, { min: 1000, max: 600_000 }, problems),
  };
  if (problems.length > 0) {
    throw new Error(`Invalid server configuration: ${problems.join('; ')}.`);
  }
  return config;
}

module.exports = { readServerConfig };
