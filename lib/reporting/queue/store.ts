// Where envelopes wait for the ingest (./queue.ts decides what waits): a folder, one file per
// envelope, so that they outlive the process (REPORT_QUEUE_DIR; on Kubernetes a volume that
// outlives a container restart); or memory, when no folder is given, which outlives only the
// outage. Each file is its entry's facts on one JSON line, then the envelope's bytes as they will
// be sent; it is written under a temporary name and renamed, so a file the next process finds is
// whole.
import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Whose envelope: the server's own reports, or a browser's through the tunnel. */
export type Source = 'server' | 'browser';

export interface EntryFacts {
  source: Source;
  /** When it was first queued (ms since the epoch): its age bound counts from here. */
  queuedAt: number;
  /** Its items' data categories, by which the ingest's rate limits apply (error, transaction…). */
  categories: string[];
  /** It holds an error event: what is kept longest when the server's share is full. */
  error: boolean;
  /** Headers sent with it besides the content type (a browser's user agent). */
  headers: Record<string, string>;
  /**
   * Its envelope header's `event_id`, when it has one: how an envelope handed over from a peer
   * twice (./hand-off.ts) is known the second time. (Absent from entries written before it.)
   */
  eventId?: string;
}

export interface StoredEntry extends EntryFacts {
  /** Unique in the store, in the order entries were made. */
  id: string;
  /** The envelope's length in bytes. */
  bytes: number;
}

export interface EnvelopeStore {
  /** What an earlier process left, oldest first (a folder store; memory has nothing). */
  load: () => Promise<StoredEntry[]>;
  /** Keeps `body` under a new id. Rejects when it could not be kept (the disk is full). */
  put: (facts: EntryFacts, body: Uint8Array) => Promise<StoredEntry>;
  read: (entry: StoredEntry) => Promise<Uint8Array>;
  /** Never rejects: an entry already gone is removed. */
  remove: (entry: StoredEntry) => Promise<void>;
  /** Bytes of envelopes this store holds in memory. */
  memoryBytes: () => number;
}

const SUFFIX = '.envelope';
/** A facts line longer than this is not one of ours. */
const MAX_FACTS_BYTES = 4096;

/** Entry ids sort in the order they were made, across restarts: time, then a counter. */
function idMaker() {
  let last = 0;
  let counter = 0;
  // A process's own tag, so two processes that shared a folder by mistake never reuse a name.
  const tag = randomBytes(3).toString('hex');
  return () => {
    const now = Date.now();
    counter = now === last ? counter + 1 : 0;
    last = now;
    return `${String(now).padStart(15, '0')}-${String(counter).padStart(6, '0')}-${tag}`;
  };
}

export function memoryStore(): EnvelopeStore {
  const bodies = new Map<string, Uint8Array>();
  let held = 0;
  const nextId = idMaker();
  return {
    load: async () => [],
    put: async (facts, body) => {
      const entry = { ...facts, id: nextId(), bytes: body.length };
      bodies.set(entry.id, body);
      held += body.length;
      return entry;
    },
    read: async (entry) => {
      const body = bodies.get(entry.id);
      if (!body) throw new Error('envelope gone');
      return body;
    },
    remove: async (entry) => {
      const body = bodies.get(entry.id);
      if (!body) return;
      bodies.delete(entry.id);
      held -= body.length;
    },
    memoryBytes: () => held,
  };
}

/** Reads the facts line of a file, without reading the envelope after it. */
async function readFacts(file: string): Promise<{ facts: EntryFacts; offset: number; size: number } | null> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const head = Buffer.alloc(Math.min(MAX_FACTS_BYTES, size));
    await handle.read(head, 0, head.length, 0);
    const end = head.indexOf(10);
    // Stryker disable next-line ConditionalExpression,EqualityOperator: without a newline the line cannot parse either; this says why early.
    if (end < 0) return null;
    const facts = JSON.parse(head.subarray(0, end).toString('utf8')) as EntryFacts;
    if (facts.source !== 'server' && facts.source !== 'browser') return null;
    if (typeof facts.queuedAt !== 'number' || !Array.isArray(facts.categories)) return null;
    return { facts, offset: end + 1, size: size - end - 1 };
  } finally {
    await handle.close();
  }
}

export function folderStore(folder: string): EnvelopeStore {
  const nextId = idMaker();
  /** Where each entry's envelope starts in its file, after the facts line. */
  const offsets = new Map<string, number>();
  const fileOf = (id: string) => path.join(folder, `${id}${SUFFIX}`);
  return {
    load: async () => {
      await mkdir(folder, { recursive: true });
      // Stryker disable next-line MethodExpression: Node's readdir sorts today (libuv's scandir), which no document promises.
      const names = (await readdir(folder)).sort();
      const entries: StoredEntry[] = [];
      for (const name of names) {
        const file = path.join(folder, name);
        // A write the last process did not finish: never renamed, never whole.
        if (name.endsWith('.partial')) {
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: the file was just listed; force only covers another process removing it meanwhile.
          await rm(file, { force: true });
          continue;
        }
        if (!name.endsWith(SUFFIX)) continue;
        const id = name.slice(0, -SUFFIX.length);
        const found = await readFacts(file).catch(() => undefined);
        if (!found) {
          // Not ours, or damaged: it would never send; keeping it would only take the bound.
          // Stryker disable next-line ObjectLiteral,BooleanLiteral: as above.
          await rm(file, { force: true });
          continue;
        }
        offsets.set(id, found.offset);
        entries.push({ ...found.facts, id, bytes: found.size });
      }
      return entries;
    },
    put: async (facts, body) => {
      const entry = { ...facts, id: nextId(), bytes: body.length };
      const line = Buffer.from(`${JSON.stringify(facts)}\n`);
      const partial = `${fileOf(entry.id)}.partial`;
      try {
        await writeFile(partial, Buffer.concat([line, body]));
        await rename(partial, fileOf(entry.id));
      } catch (error) {
        // (A partial file that was never made: the catch takes its "not found".)
        await rm(partial).catch(() => {});
        throw error;
      }
      offsets.set(entry.id, line.length);
      return entry;
    },
    read: async (entry) => {
      const whole = await readFile(fileOf(entry.id));
      return new Uint8Array(whole.subarray(offsets.get(entry.id) ?? 0));
    },
    remove: async (entry) => {
      offsets.delete(entry.id);
      // An entry removed twice: the catch takes the second's "not found".
      await rm(fileOf(entry.id)).catch(() => {});
    },
    memoryBytes: () => 0,
  };
}
