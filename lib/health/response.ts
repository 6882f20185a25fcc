// HTTP semantics of the health endpoints, apart from Next so they can be tested on their own.
import type { Probe } from './report';
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
const OPTIONS_RESPONSE: ProbeResponse = { status: 204, headers: { ...NO_STORE, Allow: ALLOWED_METHODS } };

function serialise(status: number, payload: unknown, extraHeaders: Record<string, string> = {}) {
  const body = JSON.stringify(payload);
  return {
    status,
    headers: {
      ...NO_STORE,
      'Content-Type': HEALTH_CONTENT_TYPE,
      'Content-Length': String(Buffer.byteLength(body)),
      ...extraHeaders,
    },
    body,
  };
}

const METHOD_NOT_ALLOWED = serialise(
  405,
  { status: 'fail', output: `Method not allowed. Use ${ALLOWED_METHODS}.` },
  { Allow: ALLOWED_METHODS },
);

// Reports are reused while nothing changes (./report.ts); so is their serialised form.
const serialised = new WeakMap<HealthReport, Required<ProbeResponse>>();

function reportResponse(report: HealthReport): Required<ProbeResponse> {
  let response = serialised.get(report);
  if (!response) {
    response = serialise(report.status === 'fail' ? 503 : 200, report);
    serialised.set(report, response);
  }
  return response;
}

const withoutBody = ({ status, headers }: ProbeResponse): ProbeResponse => ({ status, headers });

/**
 * GET and HEAD alike (HEAD without a body): pass and warn → 200, fail → 503. OPTIONS → 204.
 * Any other method → 405 with Allow.
 */
export async function probeResponse(
  method: string | undefined,
  probe: Probe,
  report: (probe: Probe) => Promise<HealthReport>,
): Promise<ProbeResponse> {
  if (method === 'GET') return reportResponse(await report(probe));
  if (method === 'HEAD') return withoutBody(reportResponse(await report(probe)));
  if (method === 'OPTIONS') return OPTIONS_RESPONSE;
  return METHOD_NOT_ALLOWED;
}
