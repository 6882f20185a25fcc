// What the reporting test build baked in: its DSN (and so the local ingest's port) and tunnel path.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPORTING_DIST, ROOT } from './paths';

export interface ReportingBuild {
  dsn: string;
  ingestPort: number;
  tunnelPath: string;
  release: string;
  environment: string;
}

export function reportingBuild(distDir = REPORTING_DIST): ReportingBuild {
  const { config } = JSON.parse(readFileSync(path.join(ROOT, distDir, 'required-server-files.json'), 'utf8'));
  const env = config.env as Record<string, string>;
  return {
    dsn: env.APP_SENTRY_DSN!,
    ingestPort: Number(new URL(env.APP_SENTRY_DSN!).port),
    tunnelPath: env.APP_SENTRY_TUNNEL_PATH!,
    release: env.APP_RELEASE!,
    environment: env.APP_SENTRY_ENVIRONMENT!,
  };
}
