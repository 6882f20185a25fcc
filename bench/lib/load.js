// Load generation with autocannon, bounded in time.
const autocannon = require('autocannon');

/**
 * @typedef {object} LoadResult
 * @property {number} rps  mean requests per second
 * @property {number} p50  ms
 * @property {number} p99  ms
 * @property {number} max  ms, the slowest answer
 * @property {number} requests
 * @property {number} errors  connection errors and timeouts
 * @property {Record<string, number>} statuses  answers by class (`2xx`…)
 * @property {Record<string, number>} codes  answers by status code (`200`…)
 */

/**
 * @param {{ url: string, connections: number, seconds: number, method?: import('autocannon').Request['method'], rate?: number }} options
 *   `rate`: requests per second per connection, for probing at a steady pace.
 * @returns {Promise<LoadResult>}
 */
async function load({ url, connections, seconds, method = 'GET', rate }) {
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    method,
    timeout: 10,
    ...(rate ? { connectionRate: rate } : {}),
  });
  /** @type {Record<string, number>} */
  const statuses = {};
  for (const [key, value] of Object.entries(result)) {
    const code = key.match(/^(\d)xx$/)?.[1];
    if (code && typeof value === 'number' && value > 0) statuses[`${code}xx`] = value;
  }
  /** @type {Record<string, number>} */
  const codes = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) codes[code] = stats.count ?? 0;
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    statuses,
    codes,
  };
}

module.exports = { load };
