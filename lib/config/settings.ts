// The running server's settings: read from the environment (after .env files are loaded) and
// checked once at start, all together, so a bad deployment stops with one line naming every wrong
// variable. Each value is a row of ./variables.ts (name, default, check, meaning). Kept in a
// process slot, so health (inside Next's bundles) reads what the server checked.
import { errorFields, log } from '../log/json-line';
import { processSlot } from '../process/slots';
import { buildDsn } from './build-values';
import { readVariable, VARIABLES, type Env } from './variables';

export interface Thresholds {
  warn: number;
  fail: number;
}

/** Each field is the value of the row of ./variables.ts with the same key. */
export interface Settings {
  port: number;
  host: string;
  drainMs: number;
  shutdownTimeoutMs: number;
  keepAliveTimeoutMs: number;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  maxConnections: number;
  connectionsCheckIntervalMs: number;
  health: {
    eventLoopDelayMs: Thresholds;
    heapUsedRatio: Thresholds;
    checkReuseMs: number;
  };
  /** SENTRY_DSN at start, else the build's; null: errors become JSON lines. */
  sentryDsn: string | null;
}

/** Two rows of ./variables.ts that must be ordered: warn below fail. */
function thresholds(
  env: Env,
  warnKey: 'eventLoopDelayWarnMs' | 'heapUsedWarnRatio',
  failKey: 'eventLoopDelayFailMs' | 'heapUsedFailRatio',
  problems: string[],
): Thresholds {
  const before = problems.length;
  const warn = readVariable(warnKey, env, problems);
  const fail = readVariable(failKey, env, problems);
  if (problems.length === before && warn >= fail) {
    problems.push(
      `${VARIABLES[warnKey].name} must be below ${VARIABLES[failKey].name} (got ${warn} and ${fail})`,
    );
  }
  return { warn, fail };
}

/**
 * The DSN the server reports with. SENTRY_DSN at start must be well-formed and, when the build had
 * one, the same one: the tunnel only forwards envelopes for the DSN the browser bundle carries.
 * Unset at start, the build's DSN is used.
 */
function serverDsn(env: Env, atBuild: string | null, problems: string[]): string | null {
  const before = problems.length;
  const atStart = readVariable('sentryDsn', env, problems);
  if (problems.length > before) return null;
  if (atStart && atBuild && atStart !== atBuild) {
    problems.push(
      'SENTRY_DSN differs from the one this build was made with; rebuild, or start with the same value',
    );
    return null;
  }
  return atStart ?? atBuild;
}

/** Throws one error whose message names every bad variable. */
export function readSettings(
  env: Env,
  { dsnAtBuild = buildDsn() }: { dsnAtBuild?: string | null } = {},
): Settings {
  const problems: string[] = [];
  const read = <K extends Parameters<typeof readVariable>[0]>(key: K) => readVariable(key, env, problems);
  const settings: Settings = {
    port: read('port'),
    host: read('host'),
    drainMs: read('drainMs'),
    shutdownTimeoutMs: read('shutdownTimeoutMs'),
    keepAliveTimeoutMs: read('keepAliveTimeoutMs'),
    headersTimeoutMs: read('headersTimeoutMs'),
    requestTimeoutMs: read('requestTimeoutMs'),
    maxConnections: read('maxConnections'),
    connectionsCheckIntervalMs: read('connectionsCheckIntervalMs'),
    health: {
      eventLoopDelayMs: thresholds(env, 'eventLoopDelayWarnMs', 'eventLoopDelayFailMs', problems),
      heapUsedRatio: thresholds(env, 'heapUsedWarnRatio', 'heapUsedFailRatio', problems),
      checkReuseMs: read('checkReuseMs'),
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

/** The settings the server read and checked at start. */
export const settingsSlot = processSlot<Settings>('settings');

/** Called once by the server at start, after a successful readSettings. */
export function installSettings(settings: Settings): void {
  settingsSlot.write(settings);
}

/**
 * The settings the server checked at start. Without that server (unit tests, `next dev` run
 * directly) they are read here once; a bad value is logged and the defaults are used, since there
 * is no start to stop.
 */
export function settings(): Settings {
  const installed = settingsSlot.read();
  if (installed) return installed;
  let read: Settings;
  try {
    read = readSettings(process.env);
  } catch (error) {
    log('error', 'config.invalid', { error: errorFields(error) });
    read = readSettings({});
  }
  installSettings(read);
  return read;
}
