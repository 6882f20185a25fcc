// The one reader of the values `next build` bakes in (release, version, reporting settings). In
// Next's bundles, browser and server alike, each `process.env.APP_…` below is replaced by its
// value at build time (next.config.ts `env`, made by ./build-time.ts). The compiled server is not
// bundled: it copies the build's values into process.env before anything reads them
// (lib/server/build-output.ts), so the same functions answer the same values there.

/** The names the build inlines, and what each holds. (A type, not an interface: Next's `env` wants a record.) */
export type BuildEnv = {
  APP_VERSION: string;
  APP_RELEASE: string;
  /** '' without a DSN. */
  APP_SENTRY_DSN: string;
  APP_SENTRY_ENVIRONMENT: string;
  /** '' without a DSN. */
  APP_SENTRY_TUNNEL_PATH: string;
  /** The share of page views traced, '0' to '1'; '0' without a DSN. */
  APP_SENTRY_TRACES_SAMPLE_RATE: string;
  APP_SERVICE_NAME: string;
  APP_HOME_HREF: string;
  APP_CONTACT_HREF: string;
  APP_CONTACT_LABEL: string;
  /**
   * '1' when pages register the service worker (SERVICE_WORKER=on, not `npm run dev`), else ''. Read
   * by lib/service-worker/register.ts itself, where the build folds it to a constant.
   */
  APP_SERVICE_WORKER: string;
  /** SCREEN_LANGUAGES, comma-separated; read by lib/language/offered.ts, which the build folds. */
  APP_SCREEN_LANGUAGES: string;
  APP_SCREEN_DEFAULT_LANGUAGE: string;
};

// Each reader names its variable literally: that is what the build's DefinePlugin replaces.

/** The package version the app was built from. */
export const appVersion = (): string => process.env.APP_VERSION || '0.0.0';

/** The release every event and health's releaseId carry. */
export const release = (): string => process.env.APP_RELEASE || 'unknown';

/** The DSN the browser bundle reports to, or null when the build had none. */
export const buildDsn = (): string | null => process.env.APP_SENTRY_DSN || null;

export const sentryEnvironment = (): string => process.env.APP_SENTRY_ENVIRONMENT || 'production';

/** The same-origin path browsers post reports to, or null without a DSN. */
export const tunnelPath = (): string | null => process.env.APP_SENTRY_TUNNEL_PATH || null;

/** The share of page views (and server requests) traced, 0 to 1; 0 without a DSN or tracing. */
export const tracesSampleRate = (): number => Number(process.env.APP_SENTRY_TRACES_SAMPLE_RATE) || 0;
