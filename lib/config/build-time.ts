// What next.config.js inlines into every bundle: read from the environment and checked once per
// build, so a bad value stops the build with one line. next.config.js requires the compiled copy
// of this file (dist/lib/config/build-time.js), built first by `npm run build`.
import type { BuildEnv } from './build-values';
import { packageVersion, resolveRelease } from './release';
import { readReportingConfig } from './reporting';

export function buildTimeEnv(
  env: Record<string, string | undefined>,
  { dev, root }: { dev: boolean; root: string },
): BuildEnv {
  const reporting = readReportingConfig(env, { dev });
  return {
    APP_VERSION: packageVersion(root),
    APP_RELEASE: resolveRelease(env, root),
    APP_SENTRY_DSN: reporting.dsn ?? '',
    APP_SENTRY_ENVIRONMENT: reporting.environment,
    APP_SENTRY_TUNNEL_PATH: reporting.tunnelPath ?? '',
    // What the error screens say about the service (lib/config/site.ts), always defined so the
    // bundles get constants instead of a run-time lookup.
    APP_SERVICE_NAME: env.NEXT_PUBLIC_SERVICE_NAME?.trim() ?? '',
    APP_HOME_HREF: env.NEXT_PUBLIC_HOME_HREF?.trim() ?? '',
    APP_CONTACT_HREF: env.NEXT_PUBLIC_CONTACT_HREF?.trim() ?? '',
    APP_CONTACT_LABEL: env.NEXT_PUBLIC_CONTACT_LABEL?.trim() ?? '',
  };
}
