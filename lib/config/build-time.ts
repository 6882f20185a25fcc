// What next.config.ts inlines into every bundle: read from the environment (rows of ./variables.ts)
// and checked once per build, so a bad value stops the build with one line.
import type { BuildEnv } from './build-values';
import { ConfigurationError } from './configuration-error';
import { packageVersion, resolveRelease } from './release';
import { readReportingConfig } from './reporting';
import { readVariable, type Env } from './variables';

export function buildTimeEnv(env: Env, { dev, root }: { dev: boolean; root: string }): BuildEnv {
  const reporting = readReportingConfig(env, { dev });
  const problems: string[] = [];
  const contactHref = readVariable('contactHref', env, problems);
  // Read in development too, so a bad value is refused there as well.
  const serviceWorker = readVariable('serviceWorker', env, problems);
  const languages = readVariable('screenLanguages', env, problems);
  const defaultLanguage = readVariable('screenDefaultLanguage', env, problems);
  if (!languages.includes(defaultLanguage))
    problems.push(
      `SCREEN_DEFAULT_LANGUAGE (${defaultLanguage}) must be one of SCREEN_LANGUAGES (${languages.join(',')})`,
    );
  if (problems.length > 0)
    throw new ConfigurationError(`Invalid build configuration: ${problems.join('; ')}.`);
  return {
    APP_VERSION: packageVersion(root),
    APP_RELEASE: resolveRelease(env, root),
    APP_SENTRY_DSN: reporting.dsn ?? '',
    APP_SENTRY_ENVIRONMENT: reporting.environment,
    APP_SENTRY_TUNNEL_PATH: reporting.tunnelPath ?? '',
    APP_SENTRY_TRACES_SAMPLE_RATE: String(reporting.tracesSampleRate),
    // Always defined, so the bundles get constants instead of a run-time lookup.
    APP_SERVICE_NAME: readVariable('serviceName', env, problems),
    APP_HOME_HREF: readVariable('homeHref', env, problems) ?? '',
    APP_CONTACT_HREF: contactHref ?? '',
    APP_CONTACT_LABEL: (contactHref && readVariable('contactLabel', env, problems)) || '',
    APP_SCREEN_LANGUAGES: languages.join(','),
    APP_SCREEN_DEFAULT_LANGUAGE: defaultLanguage,
    // Never under `npm run dev`: a worker would stand between the developer and every reload.
    APP_SERVICE_WORKER: !dev && serviceWorker === 'on' ? '1' : '',
  };
}
