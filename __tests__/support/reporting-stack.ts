// The reporting test build served on loopback, with the local ingest its DSN points at.
import { type Ingest, startIngest } from './ingest';
import { REPORTING_DIST } from './paths';
import { type ReportingBuild, reportingBuild } from './reporting-build';
import { type RunningServer, startServer } from './server';

export interface ReportingStack {
  build: ReportingBuild;
  server: RunningServer;
  /** Replaced when a test stops the ingest and starts a new one (see restartIngest). */
  ingest: Ingest | null;
  restartIngest: () => Promise<Ingest>;
  stop: () => Promise<void>;
}

export async function startReportingStack(): Promise<ReportingStack> {
  const build = reportingBuild();
  const stack: ReportingStack = {
    build,
    ingest: await startIngest(build.ingestPort),
    server: await startServer({ distDir: REPORTING_DIST }),
    restartIngest: async () => {
      await stack.ingest?.stop();
      stack.ingest = await startIngest(build.ingestPort);
      return stack.ingest;
    },
    stop: async () => {
      await stack.server.stop();
      await stack.ingest?.stop();
    },
  };
  return stack;
}
