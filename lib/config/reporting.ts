// Error-reporting settings: checked at build time (./build-time.ts, which inlines them into the
// bundles) and SENTRY_DSN again when the server starts (./settings.ts). The checks are rows of
// ./variables.ts.
import { ConfigurationError } from './configuration-error';
import { readVariable, type Env } from './variables';

export interface ReportingConfig {
  /** Null: no error-reporting service; server errors become JSON lines. */
  dsn: string | null;
  environment: string;
  /** The same-origin path browsers send envelopes to. */
  tunnelPath: string | null;
  /** The share of page views traced, 0 to 1; 0 without a DSN. */
  tracesSampleRate: number;
}

/**
 * Whether a development server leaves SENTRY_DSN unused: unless SENTRY_IN_DEVELOPMENT=1, errors
 * made while coding stay on the developer's screen (Next's overlay, the terminal) and out of the
 * production project's issues and alerts.
 */
export function quietInDevelopment(env: Env, dev: boolean): boolean {
  // Stryker disable next-line ArrayDeclaration: its problems are kept where readReportingConfig reads it.
  return dev && readVariable('sentryInDevelopment', env, []) !== '1';
}

/** Throws one line naming every bad variable. */
export function readReportingConfig(env: Env, { dev }: { dev: boolean }): ReportingConfig {
  const problems: string[] = [];
  const dsnSet = readVariable('sentryDsn', env, problems);
  readVariable('sentryInDevelopment', env, problems);
  const dsn = quietInDevelopment(env, dev) ? null : dsnSet;
  const tunnelPath = readVariable('sentryTunnelPath', env, problems);
  const environment =
    readVariable('sentryEnvironment', env, problems) ?? (dev ? 'development' : 'production');
  const tracesSampleRate = readVariable('sentryTracesSampleRate', env, problems);
  if (problems.length > 0)
    throw new ConfigurationError(`Invalid error-reporting configuration: ${problems.join('; ')}.`);
  if (!dsn) return { dsn: null, environment, tunnelPath: null, tracesSampleRate: 0 };
  // Sentry's default path: a hash of the DSN, which gives ad-block filter lists nothing to match.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- @sentry/core only with a DSN
  const { getTunnelPath } = require('@sentry/core') as typeof import('@sentry/core');
  return { dsn, environment, tunnelPath: tunnelPath ?? getTunnelPath(dsn) ?? null, tracesSampleRate };
}
