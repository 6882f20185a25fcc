// The running server's settings: read from the environment (after .env files are loaded) and
// checked once at start, all together, so a bad deployment stops with one line naming every wrong
// variable. Each value is a row of ./variables.ts (name, default, check, meaning). Kept in a
// process slot, so health (inside Next's bundles) reads what the server checked.
import { errorFields, log } from '../log/logger';
import { processSlot } from '../process/slots';
import { buildDsn } from './build-values';
import { ConfigurationError } from './configuration-error';
import { quietInDevelopment } from './reporting';
import { readVariable, START_KEYS, VARIABLES, type Env, type StartKey, type ValueOf } from './variables';

/** Each start-time row of ./variables.ts under its key, with its checked value. */
export type Settings = { [K in StartKey]: ValueOf<K> };

/** A warn and a fail threshold, warn below fail. */
export interface Thresholds {
  warn: number;
  fail: number;
}

/** Thresholds whose warn value must be below their fail value. */
const ORDERED_PAIRS = [
  ['eventLoopDelayWarnMs', 'eventLoopDelayFailMs'],
  ['heapUsedWarnRatio', 'heapUsedFailRatio'],
] as const;

/** The pair of thresholds of one measure. */
export function thresholdsOf(measure: 'eventLoopDelay' | 'heapUsed', from: Settings): Thresholds {
  return measure === 'eventLoopDelay'
    ? { warn: from.eventLoopDelayWarnMs, fail: from.eventLoopDelayFailMs }
    : { warn: from.heapUsedWarnRatio, fail: from.heapUsedFailRatio };
}

/**
 * The DSN the server reports with. SENTRY_DSN at start must be well-formed (checked by its row)
 * and, when the build had one, the same one: the tunnel only forwards envelopes for the DSN the
 * browser bundle carries. Unset at start, the build's DSN is used.
 */
function serverDsn(atStart: string | null, atBuild: string | null, problems: string[]): string | null {
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
  { dsnAtBuild = buildDsn(), dev = false }: { dsnAtBuild?: string | null; dev?: boolean } = {},
): Settings {
  const problems: string[] = [];
  const values: Partial<Record<StartKey, unknown>> = {};
  for (const key of START_KEYS) values[key] = readVariable(key, env, problems);
  const settings = values as Settings;
  const refused = (key: StartKey) =>
    problems.some((problem) => problem.startsWith(`${VARIABLES[key].name} `));

  settings.sentryDsn =
    refused('sentryDsn') || quietInDevelopment(env, dev)
      ? null
      : serverDsn(settings.sentryDsn, dsnAtBuild, problems);
  for (const [warn, fail] of ORDERED_PAIRS) {
    if (!refused(warn) && !refused(fail) && settings[warn] >= settings[fail]) {
      problems.push(
        `${VARIABLES[warn].name} must be below ${VARIABLES[fail].name} (got ${settings[warn]} and ${settings[fail]})`,
      );
    }
  }
  if (settings.headersTimeoutMs > settings.requestTimeoutMs) {
    problems.push(
      `HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (got ${settings.headersTimeoutMs} and ${settings.requestTimeoutMs})`,
    );
  }
  // (PORT=0 picks a free port, and MANAGEMENT_PORT=0 turns the listener off: two zeros are no clash.)
  if (settings.port !== 0 && settings.port === settings.managementPort) {
    problems.push(
      `MANAGEMENT_PORT must differ from PORT (got ${settings.port} for both): the probes and /metrics listen on a port of their own`,
    );
  }
  if (problems.length > 0) throw new ConfigurationError(`Invalid configuration: ${problems.join('; ')}.`);
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
