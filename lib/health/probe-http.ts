// HTTP semantics of the health route, kept apart from Next so they are testable on their own.

export const HEALTH_CONTENT_TYPE = 'application/health+json';
export const ALLOWED_METHODS = 'GET, HEAD, OPTIONS';

export interface ProbeResponse {
  status: number;
  headers: Record<string, string>;
  /** Undefined for HEAD and OPTIONS. */
  body?: string;
}

/**
 * Turns a method and a health report into the response: GET and HEAD alike (HEAD without a body),
 * OPTIONS 204, anything else 405 with Allow.
 */
export function probeResponse(
  method: string | undefined,
  report: { status: 'pass' | 'warn' | 'fail' },
): ProbeResponse {
  const common = { 'Cache-Control': 'no-store' };
  if (method === 'OPTIONS') {
    return { status: 204, headers: { ...common, Allow: ALLOWED_METHODS } };
  }
  if (method !== 'GET' && method !== 'HEAD') {
    const body = JSON.stringify({ status: 'fail', output: `Method not allowed. Use ${ALLOWED_METHODS}.` });
    return {
      status: 405,
      headers: {
        ...common,
        Allow: ALLOWED_METHODS,
        'Content-Type': `${HEALTH_CONTENT_TYPE}; charset=utf-8`,
        'Content-Length': String(Buffer.byteLength(body)),
      },
      body,
    };
  }
  const body = JSON.stringify(report);
  return {
    status: report.status === 'fail' ? 503 : 200,
    headers: {
      ...common,
      'Content-Type': `${HEALTH_CONTENT_TYPE}; charset=utf-8`,
      'Content-Length': String(Buffer.byteLength(body)),
    },
    body: method === 'HEAD' ? undefined : body,
  };
}
