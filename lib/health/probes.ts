// The public health probes and their paths (pages/api/health/): a module of its own, so the server
// can tell a probe's request from others without loading the health checks.

/** `live`: the process runs. `ready`: send it traffic. `overall`: for uptime monitors. */
export type Probe = 'live' | 'ready' | 'overall';

export const PROBE_PATHS: Record<Probe, string> = {
  overall: '/api/health',
  live: '/api/health/live',
  ready: '/api/health/ready',
};
