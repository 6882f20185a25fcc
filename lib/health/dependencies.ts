// The one place product teams register checks of what this app depends on (a database, a cache, an
// upstream API). Each gets its own timeout and criticality (docs/operations.md, "Health").
import type { HealthCheck } from './types';

/**
 * Checks run on every readiness and overall probe, in parallel with the process checks.
 *
 * Example:
 *
 *   import { pool } from '../db';
 *   export const dependencyChecks: HealthCheck[] = [
 *     {
 *       name: 'postgres:responseTime',
 *       componentType: 'datastore',
 *       critical: true,          // without the database this replica cannot serve: take it out
 *       timeoutMs: 300,          // well inside the 1 s probe timeout
 *       run: async (signal) => {
 *         const started = performance.now();
 *         await pool.query({ text: 'select 1', signal });
 *         return { status: 'pass', observedValue: Math.round(performance.now() - started), observedUnit: 'ms' };
 *       },
 *     },
 *   ];
 *
 * Keep checks cheap: the management listener decides readiness every second on every replica
 * (docs/management.md), and orchestrators and monitors probe /api/health/* on top of that.
 */
export const dependencyChecks: HealthCheck[] = [];
