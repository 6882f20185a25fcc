// The metrics recorder (lib/metrics/record.ts) as unit tests install it: every method a no-op but
// those a test watches.
import type { Recorder } from '@lib/metrics/record';

export function recorderWith(watched: Partial<Recorder>): Recorder {
  const none = () => {};
  return {
    tunnel: none,
    report: none,
    fleet: none,
    lostFileReload: none,
    outageScreen: none,
    beaconIgnored: none,
    beaconBudgetSpent: none,
    inheritedSampled: none,
    transaction: none,
    reportQueue: none,
    pageCache: none,
    ...watched,
  };
}
