// A stage of the pipeline (lib/server/pipeline.ts): the three health probes, answered before Next
// from the same code as their route files (pages/api/health/, ./route.ts). A probe needs nothing
// Next's API routing gives (its router, body parser, compression wrapper and abort signal), which
// cost more than the probe itself: about 170 µs of CPU per request in a profile, against tens for
// this stage (bench/README.md, "Lean under load"). Only the exact paths Next serves the route files
// at (with the build's base path and trailing slash): any other spelling (`/api/health/`,
// `/API/health`) still goes to Next, which redirects or answers it as it always has. A build with a
// proxy (middleware) leaves the probes to Next: the proxy may guard or move any path.
// Production only: under `npm run dev` Next answers, so a change to the checks reloads with the
// rest of the code.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PROBE_PATHS, type Probe } from './probes';
import type { healthReport } from './report';
import { probeResponse } from './response';

/**
 * Answers the request if its path is a probe's, and says so (the answer is on its way: `failed`
 * hears of an error); otherwise leaves it alone.
 */
export type HealthStage = ((req: IncomingMessage, res: ServerResponse, pathname: string) => boolean) & {
  /** Whether the stage answers this path (a probe's query is then dropped before Next). */
  serves: (pathname: string) => boolean;
};

export function healthStage({
  report,
  failed,
  servedAt = (path) => path,
}: {
  report: typeof healthReport;
  /** Where Next serves a route's path in this build (lib/server/build-output.ts, servedPath). */
  servedAt?: (path: string) => string;
  /** A report that threw: the pipeline reports it and answers 500, as for Next's own failures. */
  failed: (req: IncomingMessage, res: ServerResponse, error: unknown) => void;
}): HealthStage {
  const probes = new Map<string, Probe>(
    (Object.entries(PROBE_PATHS) as [Probe, string][]).map(([probe, path]) => [servedAt(path), probe]),
  );
  const stage = (req: IncomingMessage, res: ServerResponse, pathname: string) => {
    const probe = probes.get(pathname);
    if (probe === undefined) return false;
    probeResponse(req.method, probe, report)
      .then(({ status, headers, body }) => {
        res.writeHead(status, headers);
        res.end(body);
      })
      .catch((error: unknown) => failed(req, res, error));
    return true;
  };
  return Object.assign(stage, { serves: (pathname: string) => probes.has(pathname) });
}
