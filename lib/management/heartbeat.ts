// The main event loop's heartbeat, in memory shared with the management worker (./worker.ts): the
// time, the loop's measured delay, the lifecycle phase and the readiness status, written many
// times a second. Shared memory, not messages: a message would wait in the same queue as the work
// that keeps the loop busy, so a busy loop and a dead one would look the same.
//
// A sequence lock keeps a read whole: the writer makes the sequence odd, writes, makes it even; a
// reader retries while it is odd or changed under it. Only the main thread writes.
import type { HealthStatus } from '../health/types';
import type { Phase } from '../lifecycle/state';

export interface Beat {
  /** When the main loop wrote it, ms since the epoch. */
  at: number;
  /** The loop's event-loop delay p99 over the last samples, ms. */
  loopDelayMs: number;
  phase: Phase;
  /** Readiness as /api/health/ready last decided it; null before the first decision. */
  status: HealthStatus | null;
}

const PHASES: Phase[] = ['starting', 'ready', 'draining', 'closed'];
const STATUSES: HealthStatus[] = ['pass', 'warn', 'fail'];
/** 8 bytes of sequence (an Int32 and padding), then four doubles. */
export const HEARTBEAT_BYTES = 8 + 4 * 8;

export interface Heartbeat {
  buffer: SharedArrayBuffer;
  write: (beat: Beat) => void;
  /** The latest whole beat; null before the first. */
  read: () => Beat | null;
}

export function heartbeatIn(buffer: SharedArrayBuffer = new SharedArrayBuffer(HEARTBEAT_BYTES)): Heartbeat {
  const sequence = new Int32Array(buffer, 0, 1);
  const values = new Float64Array(buffer, 8, 4);
  return {
    buffer,
    write: (beat) => {
      Atomics.add(sequence, 0, 1); // odd: being written
      values[0] = beat.at;
      values[1] = beat.loopDelayMs;
      values[2] = PHASES.indexOf(beat.phase);
      values[3] = beat.status === null ? -1 : STATUSES.indexOf(beat.status);
      Atomics.add(sequence, 0, 1); // even: whole
    },
    read: () => {
      // Stryker disable next-line EqualityOperator,UnaryOperator: a bound on retries while another thread writes, which one test thread cannot make.
      for (let attempt = 0; attempt < 100; attempt += 1) {
        const before = Atomics.load(sequence, 0);
        if (before % 2 === 1) continue;
        // Stryker disable next-line UnaryOperator: a Float64Array has every index; the defaults only satisfy the types.
        const [at = 0, loopDelayMs = 0, phase = 0, status = -1] = values;
        // Stryker disable next-line ConditionalExpression: a write between the two loads needs a second thread; one test thread cannot interleave here.
        if (Atomics.load(sequence, 0) !== before) continue;
        if (before === 0) return null;
        return {
          at,
          loopDelayMs,
          phase: PHASES[phase] ?? 'starting',
          status: status < 0 ? null : (STATUSES[status] ?? 'fail'),
        };
      }
      return null; // never whole: treated as no heartbeat, which fails both probes
    },
  };
}
