// The stop's budget is the sum of its steps, each bounded by its setting or a fixed cap, in the
// order lib/lifecycle/graceful-shutdown.ts takes them.
import {
  FLUSH_TIMEOUT_MS,
  IN_FLIGHT_POLL_MS,
  shutdownBudgetMs,
  shutdownSteps,
} from '@lib/lifecycle/shutdown-budget';

const settings = { drainMs: 1000, shutdownTimeoutMs: 3000, reportHandoffTimeoutMs: 700 };

describe('the shutdown budget', () => {
  it('lists each step with its bound and the setting that sets it, in order', () => {
    expect(shutdownSteps(settings)).toEqual([
      { step: 'drain', ms: 1000, setting: 'SHUTDOWN_DRAIN_MS' },
      { step: 'in-flight', ms: 3000 + IN_FLIGHT_POLL_MS, setting: 'SHUTDOWN_TIMEOUT_MS' },
      { step: 'flush', ms: FLUSH_TIMEOUT_MS, setting: null },
      { step: 'hand-off', ms: 700, setting: 'REPORT_HANDOFF_TIMEOUT_MS' },
    ]);
    expect([FLUSH_TIMEOUT_MS, IN_FLIGHT_POLL_MS]).toEqual([2000, 20]);
  });

  it('is their sum, each setting counted once', () => {
    expect(shutdownBudgetMs(settings)).toBe(1000 + 3020 + 2000 + 700);
    expect(shutdownBudgetMs({ ...settings, reportHandoffTimeoutMs: 0 })).toBe(6020);
    expect(shutdownBudgetMs({ drainMs: 0, shutdownTimeoutMs: 0, reportHandoffTimeoutMs: 0 })).toBe(2020);
  });
});
