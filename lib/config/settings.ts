// The running server's settings: read from the environment (after .env files are loaded) and
// checked once at start, all together, so a bad deployment stops with one line naming every wrong
// variable. Kept in a process slot, so health (inside Next's bundles) reads what the server checked.
import { log } from '../log/json-line';
import { readSlot, writeSlot } from '../process/slots';
import { buildDsn } from './build-values';
import { checkDsn } from './reporting';

export interface Thresholds {
  warn: number;
  fail: number;
}

export interface Settings {
  port: number;
  host: string;
  /** How long to keep serving after SIGTERM while readiness says 503. */
  drainMs: number;
  /** How long in-flight requests may take once the server stops accepting. */
  shutdownTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** How long a client may take to send a request's headers before it gets 408 and is closed. */
  headersTimeoutMs: number;
  /** How long a client may take to send a whole request, headers and body. */
  requestTimeoutMs: number;
  /** At this many open connections, the one idle the longest is closed to admit a new one. */
  maxConnections: number;
  /** How often Node looks for connections past the two timeouts above. */
  connectionsCheckIntervalMs: number;
  health: {
    /** Event-loop delay p99, in ms, that makes readiness warn / fail. */
    eventLoopDelayMs: Thresholds;
    /** Heap used ÷ heap limit that makes readiness warn / fail. */
    heapUsedRatio: Thresholds;
    /** How long a dependency check's result answers later probes. */
    checkReuseMs: number;
  };
  /** The DSN server-side errors are reported with, or null: errors become JSON lines. */
  sentryDsn: string | null;
}

type Env = Record<string, string | undefined>;

interface Range {
  min: number;
  max: number;
  integer: boolean;
}

function numberSetting(env: Env, name: string, fallback: number, range: Range, problems: string[]): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw.trim());
  const valid = Number.isFinite(value) && (!range.integer || Number.isInteger(value));
  if (!valid || value < range.min || value > range.max) {
    const kind = range.integer ? 'a whole number' : 'a number';
    problems.push(`${name} must be ${kind} from ${range.min} to ${range.max} (got ${JSON.stringify(raw)})`);
    return fallback;
  }
  return value;
}

const whole = (min: number, max: number): Range => ({ min, max, integer: true });

function thresholds(env: Env, prefix: string, defaults: Thresholds, range: Range, problems: string[]) {
  const before = problems.length;
  const warn = numberSetting(env, `${prefix}_WARN`, defaults.warn, range, problems);
  const fail = numberSetting(env, `${prefix}_FAIL`, defaults.fail, range, problems);
  if (problems.length === before && warn >= fail) {
    problems.push(`${prefix}_WARN must be below ${prefix}_FAIL (got ${warn} and ${fail})`);
  }
  return { warn, fail };
}

/**
 * The DSN the server reports with. SENTRY_DSN at start must be well-formed and, when the build had
 * one, the same one: the tunnel only forwards envelopes for the DSN the browser bundle carries.
 * Unset at start, the build's DSN is used.
 */
function serverDsn(env: Env, atBuild: string | null, problems: string[]): string | null {
  const checked = checkDsn(env.SENTRY_DSN);
  if ('problem' in checked) {
    problems.push(checked.problem);
    return null;
  }
  if (checked.dsn && atBuild && checked.dsn !== atBuild) {
    problems.push(
      'SENTRY_DSN differs from the one this build was made with; rebuild, or start with the same value',
    );
    return null;
  }
  return checked.dsn ?? atBuild;
}

/** Throws one error whose message names every bad variable. */
export function readSettings(
  env: Env,
  { dsnAtBuild = buildDsn() }: { dsnAtBuild?: string | null } = {},
): Settings {
  const problems: string[] = [];
  // Behind a Kubernetes Service, endpoints take a few seconds to forget a terminating pod: keep
  // serving through that window. Elsewhere there is nothing to wait for.
  const defaultDrainMs = env.KUBERNETES_SERVICE_HOST ? 5000 : 0;
  const settings: Settings = {
    port: numberSetting(env, 'PORT', 3000, whole(0, 65535), problems),
    // HOST, not HOSTNAME: Docker and Kubernetes set HOSTNAME to the container's name.
    host: env.HOST?.trim() || '0.0.0.0',
    drainMs: numberSetting(env, 'SHUTDOWN_DRAIN_MS', defaultDrainMs, whole(0, 600_000), problems),
    shutdownTimeoutMs: numberSetting(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, whole(0, 600_000), problems),
    // Longer than the idle timeout of common load balancers (60 s), so they close first.
    keepAliveTimeoutMs: numberSetting(env, 'KEEP_ALIVE_TIMEOUT_MS', 65_000, whole(1000, 600_000), problems),
    // Seconds, not minutes: a client that has not sent its headers in 10 s is not a browser on a
    // slow line but a socket held open on purpose (Node's own default is 60 s).
    headersTimeoutMs: numberSetting(env, 'HEADERS_TIMEOUT_MS', 10_000, whole(1000, 120_000), problems),
    // Room for a large upload on a slow line; Node's default is 300 s.
    requestTimeoutMs: numberSetting(env, 'REQUEST_TIMEOUT_MS', 30_000, whole(1000, 600_000), problems),
    maxConnections: numberSetting(env, 'MAX_CONNECTIONS', 2048, whole(1, 1_000_000), problems),
    // Node checks the two timeouts above only this often (its default: 30 s).
    connectionsCheckIntervalMs: numberSetting(
      env,
      'CONNECTIONS_CHECK_INTERVAL_MS',
      1000,
      whole(100, 30_000),
      problems,
    ),
    health: {
      eventLoopDelayMs: thresholds(
        env,
        'HEALTH_EVENT_LOOP_DELAY_MS',
        { warn: 200, fail: 1000 },
        whole(1, 600_000),
        problems,
      ),
      heapUsedRatio: thresholds(
        env,
        'HEALTH_HEAP_USED_RATIO',
        { warn: 0.85, fail: 0.95 },
        { min: 0.01, max: 1, integer: false },
        problems,
      ),
      checkReuseMs: numberSetting(env, 'HEALTH_CHECK_REUSE_MS', 1000, whole(0, 60_000), problems),
    },
    sentryDsn: serverDsn(env, dsnAtBuild, problems),
  };
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (got ${settings.headersTimeoutMs} and ${settings.requestTimeoutMs})`,
    );
  }
  if (problems.length > 0) throw new Error(`Invalid configuration: ${problems.join('; ')}.`);
  return settings;
}

/** Called once by the server at start, after a successful readSettings. */
export function installSettings(settings: Settings): void {
  writeSlot('settings', settings);
}

/**
 * The settings the server checked at start. Without that server (unit tests, `next dev` run
 * directly) they are read here once; a bad value is logged and the defaults are used, since there
 * is no start to stop.
 */
export function settings(): Settings {
  const installed = readSlot('settings');
  if (installed) return installed;
  let read: Settings;
  try {
    read = readSettings(process.env);
  } catch (error) {
    log('error', 'config.invalid', { message: error instanceof Error ? error.message : String(error) });
    read = readSettings({});
  }
  installSettings(read);
  return read;
}
