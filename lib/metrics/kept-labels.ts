// A histogram's label sets kept, for the one observation every request makes. prom-client 15's
// `observe(labels, value)` checks the label names, hashes the label set into a text and turns the
// bucket's bound into a property name on every call, and its `labels()` child does the same again
// on each of its own observations. Here a label set is looked up once, through prom-client's own
// observe (so its checks still run, once), and its entry is kept under a key the caller already has;
// later observations add to that entry directly. What /metrics renders is prom-client's, unchanged
// (a unit test renders both ways and compares the texts).
//
// This reads prom-client's record of a label set (`hashMap`'s entries: labels, bucketValues, sum,
// count), which its types do not name. The version is pinned exactly; should a later one keep its
// record otherwise, `keptObserve` finds no entry and every observation goes through prom-client's
// observe as before (tested with such a histogram).
import type { Histogram } from 'prom-client';

/** What prom-client keeps for one label set. */
interface Entry {
  labels: unknown;
  bucketValues: Record<string, number>;
  sum: number;
  count: number;
}

interface Internals {
  hashMap?: Record<string, Entry>;
  upperBounds?: unknown;
}

/** At most this many label sets are kept; the others are observed through prom-client as before. */
export const KEPT_LABEL_SETS = 4096;

export interface KeptObserve<L extends string> {
  /**
   * Observes `value` under the label set that `key` names; `labels()` makes that set, asked only
   * the first time a key is seen. One key must always name the same labels.
   */
  observe: (key: string, labels: () => Record<L, string>, value: number) => void;
  /** How many label sets are kept now: for the test of the bound. */
  size: () => number;
}

/** Whether `value` is a record this file can add to (any other is left to prom-client's observe). */
function isEntry(value: unknown): value is Entry {
  const entry = value as Partial<Entry> | null | undefined;
  return (
    typeof entry?.sum === 'number' &&
    typeof entry.count === 'number' &&
    typeof entry.bucketValues === 'object' &&
    entry.bucketValues !== null
  );
}

export function keptObserve<L extends string>(histogram: Histogram<L>): KeptObserve<L> {
  const internals = histogram as unknown as Internals;
  const bounds = internals.upperBounds;
  if (!Array.isArray(bounds) || typeof internals.hashMap !== 'object') {
    // Not the prom-client this was written against: its own observe, every time.
    return { observe: (_key, labels, value) => histogram.observe(labels(), value), size: () => 0 };
  }
  // The property names prom-client files each bucket's count under: its bound as a text.
  const names = bounds.map(String);
  const kept = new Map<string, Entry>();
  // prom-client's reset(), remove() and zero() replace or drop records: whatever was kept is
  // forgotten first, so the next observation of each set finds its record again.
  for (const name of ['reset', 'remove', 'zero'] as const) {
    const original = histogram[name] as (...args: unknown[]) => void;
    (histogram as unknown as Record<string, unknown>)[name] = function forgetting(
      this: unknown,
      ...args: unknown[]
    ) {
      kept.clear();
      return original.apply(this, args);
    };
  }
  const observe: KeptObserve<L>['observe'] = (key, labels, value) => {
    const entry = kept.get(key);
    // (prom-client refuses a value that is not a number, with its own words: it sees every such one.)
    if (entry === undefined || !Number.isFinite(value)) {
      const made = labels();
      histogram.observe(made, value);
      if (kept.size >= KEPT_LABEL_SETS) return;
      // The entry prom-client has just made or added to holds this very labels object only when it
      // made it now; a set it already had (from another key) is left to its own observe.
      const found = Object.values(internals.hashMap as Record<string, unknown>).find(
        (each): each is Entry => isEntry(each) && each.labels === made,
      );
      if (found) kept.set(key, found);
      return;
    }
    entry.sum += value;
    entry.count += 1;
    // Stryker disable next-line EqualityOperator: one step past the last bound compares with undefined, false as the end is.
    for (let index = 0; index < bounds.length; index += 1) {
      if (value <= (bounds[index] as number)) {
        entry.bucketValues[names[index] as string] += 1;
        return;
      }
    }
  };
  return { observe, size: () => kept.size };
}
