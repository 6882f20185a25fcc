// HTTP semantics of the health route, apart from Next so they can be tested on their own.
import type { Probe } from './endpoints';
import type { HealthReport } from './types';

export const HEALTH_CONTENT_TYPE = 'application/health+json; charset=utf-8';
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

export interface ProbeResponse {
  status: number;
  headers: Record<string, string>;
  /** Undefined for HEAD and OPTIONS. */
  body?: string;
}

const NO_STORE = { 'Cache-Control': 'no-store' };

function withBody(
  status: number,
  contentType: string,
  payload: unknown,
  method: string | undefined,
): ProbeResponse {
  const body = JSON.stringify(payload);
  return {
    status,
    headers: { ...NO_STORE, 'Content-Type': contentType, 'Content-Length': String(Buffer.byteLength(body)) },
    body: method === 'HEAD' ? undefined : body,
  };
}

/**
 * GET and HEAD alike (HEAD without a body): pass and warn → 200, fail → 503. OPTIONS → 204.
 * Any other method → 405. An unknown path under /api/health/ → 404. Both carry Allow.
 */
export async function probeResponse(
  method: string | undefined,
  probe: Probe | null,
  report: (probe: Probe) => Promise<HealthReport>,
): Promise<ProbeResponse> {
  if (probe === null) {
    return withBody(
      404,
      'application/json; charset=utf-8',
      { error: 'Not found', endpoints: ['/api/health', '/api/health/live', '/api/health/ready'] },
      method,
    );
  }
  if (method === 'OPTIONS') return { status: 204, headers: { ...NO_STORE, Allow: ALLOWED_METHODS } };
  if (method !== 'GET' && method !== 'HEAD') {
    const response = withBody(
      405,
      HEALTH_CONTENT_TYPE,
      { status: 'fail', output: `Method not allowed. Use ${ALLOWED_METHODS}.` },
      method,
    );
    return { ...response, headers: { ...response.headers, Allow: ALLOWED_METHODS } };
  }
  const result = await report(probe);
  return withBody(result.status === 'fail' ? 503 : 200, HEALTH_CONTENT_TYPE, result, method);
}
