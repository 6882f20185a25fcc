// Process-wide state. Next bundles its own copy of every module into each of its bundles, and the
// compiled server loads yet another, so a module-level variable exists once per copy. A slot on
// globalThis under a Symbol.for key exists once per process. Each owner declares its slot, with
// its type, beside the code that uses it (`const slot = processSlot<Settings>('settings')`); this
// file knows none of them, so it imports nothing of the app.

export interface Slot<T> {
  read: () => T | undefined;
  write: (value: T) => void;
  /** The slot's value, made by `create` the first time any copy of any module asks. */
  getOrCreate: (create: () => T) => T;
  /** Empties the slot: for tests, which start each case afresh. */
  clear: () => void;
}

// The one cast: globalThis has no index signature for symbols.
const holder = globalThis as unknown as Partial<Record<symbol, unknown>>;

/** The slot `name` (unique across the app: a unit test checks), typed by its owner. */
export function processSlot<T>(name: string): Slot<T> {
  const key = Symbol.for(`app-shell.${name}`);
  return {
    read: () => holder[key] as T | undefined,
    write: (value) => {
      holder[key] = value;
    },
    getOrCreate: (create) => {
      const existing = holder[key] as T | undefined;
      if (existing !== undefined) return existing;
      const value = create();
      holder[key] = value;
      return value;
    },
    clear: () => {
      delete holder[key];
    },
  };
}
