// Readiness probed the way Kubernetes probes it: a fresh connection every PROBE_EVERY_MS, failed
// when no 200 arrives within PROBE_TIMEOUT_MS. Runs until stopped, for a scenario to report the
// slowest answer and the failures beside the attack's own figures.
import { buildRequest, sendRaw } from './raw-http';

export const PROBE_EVERY_MS = 250;
export const PROBE_TIMEOUT_MS = 2000;

export interface ProbeSummary {
  probes: number;
  failures: number;
  slowestMs: number;
}

export function probeReadiness(port: number): { stop: () => Promise<ProbeSummary> } {
  let running = true;
  const answers: { status: number; ms: number }[] = [];
  const inFlight = new Set<Promise<void>>();
  const timer = setInterval(() => {
    if (!running) return;
    const probe = sendRaw(port, buildRequest({ target: '/api/health/ready' }), PROBE_TIMEOUT_MS).then(
      (answer) => {
        // sendRaw gives up at the timeout with whatever arrived: slower than that is a failure.
        answers.push({ status: answer.ms > PROBE_TIMEOUT_MS ? 0 : answer.status, ms: answer.ms });
      },
    );
    inFlight.add(probe);
    void probe.finally(() => inFlight.delete(probe));
  }, PROBE_EVERY_MS);
  return {
    stop: async () => {
      running = false;
      clearInterval(timer);
      await Promise.all(inFlight);
      return {
        probes: answers.length,
        failures: answers.filter((a) => a.status !== 200).length,
        slowestMs: Math.max(0, ...answers.map((a) => a.ms)),
      };
    },
  };
}
