// Which build a request names by Next's skew protection (next.config's `deploymentId`): a page of
// such a build writes `?dpl=<id>` on every asset URL, and its router sends `x-deployment-id: <id>`
// with every data request. Next also gives every such build one constant build id
// (`build-TfctsWXpff2fKS`, node_modules/next/dist/build/index.js), so the build id in a path names
// no build there, and the fleet knows such a build by its deployment id instead.
import type { IncomingHttpHeaders } from 'node:http';
import { isBuildId } from './names';

/** The header Next's router sends with a data request (Next answers with `x-nextjs-deployment-id`). */
export const DEPLOYMENT_HEADER = 'x-deployment-id';

/**
 * The deployment `url` (path and query) and `headers` name: the query's `dpl` for a static file, the
 * header for a page's data; null when there is none, or one not shaped as Next's ids.
 */
export function namedDeployment(
  kind: 'static' | 'data',
  url: string,
  headers: IncomingHttpHeaders,
): string | null {
  if (kind === 'data') {
    const value = headers[DEPLOYMENT_HEADER];
    return isBuildId(value) ? value : null;
  }
  const query = url.indexOf('?');
  // Stryker disable next-line ConditionalExpression,EqualityOperator,UnaryOperator: a cost only; a path read as a query has no `dpl` (no `=` in a build file's name).
  if (query === -1) return null;
  const value = new URLSearchParams(url.slice(query + 1)).get('dpl');
  return isBuildId(value) ? value : null;
}

/**
 * The name the fleet knows a build by: its deployment id when it has one, else Next's build id.
 * Null for a deployment id the fleet cannot carry (longer than a build id: Next sets no bound):
 * the server says so at start, in one line.
 */
export function fleetBuildName(buildId: string, deploymentId: unknown): string | null {
  if (typeof deploymentId !== 'string' || deploymentId === '') return buildId;
  return isBuildId(deploymentId) ? deploymentId : null;
}
