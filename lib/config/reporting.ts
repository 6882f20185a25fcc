// Error-reporting settings: checked at build time (lib/config/build-time.ts, which inlines them
// into the bundles) and SENTRY_DSN again when the server starts (lib/config/settings.ts).

/**
 * @sentry/core takes about 100 ms to load; a server without a DSN never needs it. A synchronous
 * require, because the checks that need it run synchronously while the configuration is read.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded lazily, see above
const sentryCore = (): typeof import('@sentry/core') => require('@sentry/core');

export interface ReportingConfig {
  /** Null: no error-reporting service; server errors become JSON lines. */
  dsn: string | null;
  environment: string;
  /** The same-origin path browsers send envelopes to. */
  tunnelPath: string | null;
}

// A single path segment, so it cannot shadow a page folder, and not one of Next's own prefixes.
const TUNNEL_PATH = /^\/[A-Za-z0-9][A-Za-z0-9_-]{2,63}$/;
const RESERVED = ['/api', '/_next', '/404', '/500', '/_error'];

/** Why the DSN is unusable, or '' when it is fine. */
function dsnProblem(raw: string): string {
  let url: URL;
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

/**
 * A SENTRY_DSN value checked: null when unset, the DSN when well-formed, else the problem as one
 * sentence naming the variable.
 */
export function checkDsn(raw: string | undefined): { dsn: string | null } | { problem: string } {
  const value = raw?.trim() || '';
  if (!value) return { dsn: null };
  const problem = dsnProblem(value);
  return problem ? { problem: `SENTRY_DSN is malformed: ${problem}` } : { dsn: value };
}

/** Throws one line naming every bad variable. */
export function readReportingConfig(
  env: Record<string, string | undefined>,
  { dev }: { dev: boolean },
): ReportingConfig {
  const problems: string[] = [];
  const checked = checkDsn(env.SENTRY_DSN);
  const dsn = 'dsn' in checked ? checked.dsn : null;
  if ('problem' in checked) problems.push(checked.problem);

  const rawTunnel = env.SENTRY_TUNNEL_PATH?.trim() || '';
  let tunnelPath: string | null = null;
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
    tunnelPath: dsn ? tunnelPath : null,
  };
}
