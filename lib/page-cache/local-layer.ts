// The page cache's layer in this process's memory: what a hit costs when it costs no network. Bounded
// by bytes (as Next's own memory cache is, 50 MB by default), least recently read out first. The
// shared store keeps it true: a peer's write removes the entry here (./page-cache.ts), and so does a
// reconnection, after which invalidations may have been missed.
//
// Each key has a generation, bumped by every write and removal, so a read from the store that began
// before a peer's invalidation arrived cannot put the old page back once it answers: `setIfUnchanged`
// keeps its value only when the generation is the one the read started with.

export interface LocalLayer<V> {
  get: (key: string) => V | undefined;
  /** Keeps `value` (of `bytes`), and counts as a write: a read begun before it will not overwrite it. */
  set: (key: string, value: V, bytes: number) => void;
  /** The key's generation now, to hand back to `setIfUnchanged`. */
  generation: (key: string) => number;
  /** Keeps `value` only if nothing wrote or removed `key` since `generation` was taken. */
  setIfUnchanged: (key: string, value: V, bytes: number, generation: number) => boolean;
  delete: (key: string) => void;
  /** Removes every entry (and starts every key's generation anew). */
  clear: () => void;
  /** Bytes held now. */
  bytes: () => number;
  size: () => number;
}

export function createLocalLayer<V>(maxBytes: number): LocalLayer<V> {
  // Insertion order is recency: a read moves its entry to the end, the first is the oldest.
  const entries = new Map<string, { value: V; bytes: number }>();
  const generations = new Map<string, number>();
  // Bumped by clear(), so a generation taken before it never matches one after.
  let epoch = 0;
  // The generation of a key with none of its own: above every generation pruning forgot (below).
  let floor = 0;
  let held = 0;

  const remove = (key: string) => {
    const entry = entries.get(key);
    if (!entry) return;
    entries.delete(key);
    held -= entry.bytes;
  };

  const bump = (key: string) => {
    generations.set(key, (generations.get(key) ?? floor) + 1);
    // Generations of keys no longer held are kept only as long as there are about as many as entries.
    // The floor rises above those forgotten, so a read in flight for such a key is refused: it may
    // hold the page a peer's message (one of a burst that caused this pruning) said is old.
    if (generations.size > 2 * entries.size + 1024) {
      for (const [known, generation] of generations)
        if (!entries.has(known)) {
          floor = Math.max(floor, generation + 1);
          generations.delete(known);
        }
    }
  };

  const keep = (key: string, value: V, bytes: number) => {
    remove(key);
    // An entry larger than the whole layer is not kept (it would push out everything else and itself).
    if (bytes > maxBytes) return;
    entries.set(key, { value, bytes });
    held += bytes;
    for (const [oldest, entry] of entries) {
      if (held <= maxBytes) break;
      entries.delete(oldest);
      held -= entry.bytes;
    }
  };

  const generationOf = (key: string) => epoch * 2 ** 32 + (generations.get(key) ?? floor);

  return {
    get: (key) => {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      entries.set(key, entry);
      return entry.value;
    },
    set: (key, value, bytes) => {
      bump(key);
      keep(key, value, bytes);
    },
    generation: generationOf,
    setIfUnchanged: (key, value, bytes, generation) => {
      if (generationOf(key) !== generation) return false;
      keep(key, value, bytes);
      return true;
    },
    delete: (key) => {
      bump(key);
      remove(key);
    },
    clear: () => {
      entries.clear();
      generations.clear();
      held = 0;
      epoch += 1;
    },
    bytes: () => held,
    size: () => entries.size,
  };
}
