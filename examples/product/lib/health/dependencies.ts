// The product's checks (the shell's file of the same path, filled in).
import type { HealthCheck } from './types';

const upstream = () => process.env.PRODUCT_API_URL ?? 'http://127.0.0.1:4010';

export const dependencyChecks: HealthCheck[] = [
  {
    name: 'product-api:responseTime',
    componentType: 'component',
    // The pages that need it fail alone; the rest of the site still serves.
    critical: false,
    timeoutMs: 300,
    run: async (signal) => {
      const started = performance.now();
      const answer = await fetch(`${upstream()}/health`, { signal });
      if (!answer.ok) return { status: 'warn', output: 'failed' };
      return { status: 'pass', observedValue: Math.round(performance.now() - started), observedUnit: 'ms' };
    },
  },
];
