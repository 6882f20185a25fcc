// One queue for every envelope the server sends to the ingest: its own reports, sessions and
// transactions (../node/transport.ts) and what the tunnel forwards for browsers (../tunnel/).
// While the ingest takes them, each is sent at once and nothing is written; when it fails (5xx, a
// timeout, a refused connection) or rate-limits, the envelope waits in ./store.ts, and so does
// every later one until the ingest is back, so they leave in the order they came. docs/report-queue.md
// says why it is not the SDK's makeOfflineTransport, and every bound.
//
// Bounded by bytes, count and age. Each source has half of the bytes and of the count, so a flood
// through the tunnel cannot push the server's own reports out: a full browser share refuses (the
// tunnel answers 503 and the browser keeps the report), a full server share makes room for an
// error by dropping its oldest waiting non-error envelope (transactions, sessions), and drops what
// it cannot fit.
import {
  type DataCategory,
  envelopeItemTypeToDataCategory,
  isRateLimited,
  parseEnvelope,
  parseRetryAfterHeader,
  type RateLimits,
  updateRateLimits,
} from '@sentry/core';
import { log } from '../../log/logger';
import { processSlot } from '../../process/slots';
import { transportResponseOf } from '../ingest/ingest-thread';
import type { IngestAnswer } from '../ingest/ingest-messages';
import { failureReason } from '../ingest/forward';
import type { EntryFacts, EnvelopeStore, Source, StoredEntry } from './store';

export interface QueueLimits {
  /** Bytes of envelopes waiting, both sources together; each may hold half. */
  maxBytes: number;
  /** Envelopes waiting, both sources together; each may hold half. */
  maxEnvelopes: number;
  /** Older than this, an envelope is dropped unsent (`expired`). */
  maxAgeMs: number;
  /** Envelopes sent at once from the queue once the ingest answers again. */
  concurrency: number;
  /** The first wait after a failure; it doubles with each failure in a row… */
  minBackoffMs: number;
  /** …up to this, unless the ingest's Retry-After asks for longer. */
  maxBackoffMs: number;
}

export const QUEUE_DEFAULTS: QueueLimits = {
  maxBytes: 64 * 1024 * 1024,
  maxEnvelopes: 10_000,
  // Sentry keeps sessions up to five days old and events longer; a day bounds the disk a long
  // outage takes while covering any outage someone is awake for.
  maxAgeMs: 24 * 60 * 60 * 1000,
  concurrency: 4,
  minBackoffMs: 1000,
  maxBackoffMs: 30_000,
};

/** Sends one envelope; rejects when the ingest could not be asked (`name` TimeoutError for a timeout). */
export type IngestSend = (
  body: Uint8Array | string,
  headers: Record<string, string>,
) => Promise<IngestAnswer>;

/**
 * What became of a submitted envelope: the ingest answered it (passed back as it is: 2xx, 4xx,
 * and 429, which is also kept to be sent after the limit); it waits in the queue; or it could not
 * wait, the source's share being full.
 */
export type Submitted = { kind: 'answered'; reply: IngestAnswer } | { kind: 'queued' } | { kind: 'full' };

/** Why an attempt failed and the envelope stays: the labels of app_report_queue_retried_total. */
export type RetryReason = 'status_5xx' | 'timeout' | 'unreachable' | 'rate_limited';
/** Why an envelope left the queue unsent: the labels of app_report_queue_dropped_total. */
export type DropReason =
  'full' | 'evicted' | 'expired' | 'rejected' | 'too_large' | 'unreadable' | 'disk_error';

export interface QueueEvents {
  queued: (source: Source) => void;
  sent: (source: Source) => void;
  retried: (reason: RetryReason) => void;
  dropped: (source: Source, reason: DropReason) => void;
  /** An envelope given to a peer (`out`) or taken from one (`in`): ./hand-off.ts. */
  handedOver: (source: Source, direction: 'in' | 'out') => void;
}

/** A waiting envelope as it is handed to a peer, or taken from one. */
export interface HandedEnvelope {
  source: Source;
  body: Uint8Array;
  /** Headers it is sent to the ingest with (a browser's user agent). */
  headers: Record<string, string>;
  /** When it was first queued, on whichever instance: its age bound counts from here. */
  queuedAt: number;
}

/** What became of an envelope a peer handed over (see `adopt`). */
export type Adopted = 'queued' | 'known' | 'full';

export interface QueueStats {
  envelopes: Record<Source, number>;
  bytes: Record<Source, number>;
  /** The oldest waiting envelope's age, 0 when none waits. */
  oldestAgeSeconds: number;
  /** Bytes of envelopes held in memory: none with a folder. */
  memoryBytes: number;
}

export interface ReportQueue {
  submit: (source: Source, body: Uint8Array | string, headers?: Record<string, string>) => Promise<Submitted>;
  stats: () => QueueStats;
  /** Loads what an earlier process left and starts sending it. */
  start: () => Promise<void>;
  /**
   * Makes what is on its way durable before the process exits: writes each envelope being sent
   * straight to the ingest (it is removed again if the ingest takes it), then waits (up to
   * `timeoutMs`) for every write.
   */
  persist: (timeoutMs: number) => Promise<void>;
  /** Stops sending; what waits stays in the store. */
  stop: () => void;
  /**
   * Stops sending, then offers each waiting envelope to `give`, oldest first, `concurrency` at a
   * time, until each has been offered or `signal` aborts. One that `give` took (true) leaves the
   * queue and the store, counted as handed over; the rest stay where they are. For a process that
   * stops with envelopes its pod's deletion would lose (./hand-off.ts).
   */
  handOver: (
    give: (envelope: HandedEnvelope) => Promise<boolean>,
    options: { concurrency: number; signal: AbortSignal },
  ) => Promise<{ given: number; left: number }>;
  /**
   * Takes an envelope a peer handed over as this instance's own: it waits in line, written to the
   * store before this resolves, and keeps its first queuing time. One whose event id already waits
   * here is `known` (a hand-off cut before its answer and tried again) and is not kept twice.
   */
  adopt: (envelope: HandedEnvelope) => Promise<Adopted>;
}

export interface QueueOptions {
  store: EnvelopeStore;
  send: IngestSend;
  limits?: Partial<QueueLimits>;
  events?: Partial<QueueEvents>;
  now?: () => number;
  /** Jitter of the backoff, 0 to 1 (tests pass a constant). */
  random?: () => number;
}

interface Waiting extends StoredEntry {
  sending: boolean;
}

/** What an exchange with the ingest means for its envelope (see `heard`). */
type Heard =
  { verdict: 'waits'; reply: IngestAnswer | null } | { verdict: 'taken' | 'rejected'; reply: IngestAnswer };

/** An envelope on its way straight to the ingest, and its entry once written. */
interface Direct {
  keep: () => Promise<Waiting | 'full'>;
  kept: Promise<Waiting | 'full'> | null;
}

const toBytes = (body: Uint8Array | string) => (typeof body === 'string' ? Buffer.from(body) : body);

/**
 * An envelope's data categories and whether it holds an error, from its item headers; and its
 * header's event id, when it is a string.
 */
export function factsOf(body: Uint8Array): Pick<EntryFacts, 'categories' | 'error' | 'eventId'> {
  try {
    const [header, items] = parseEnvelope(body);
    const types = items.map(([itemHeader]) => itemHeader.type);
    return {
      categories: [...new Set(types.map((type) => envelopeItemTypeToDataCategory(type)))],
      error: types.includes('event'),
      ...(typeof header.event_id === 'string' ? { eventId: header.event_id } : {}),
    };
  } catch {
    return { categories: ['default'], error: false };
  }
}

export function createReportQueue(options: QueueOptions): ReportQueue {
  const limits = { ...QUEUE_DEFAULTS, ...options.limits };
  const { store, send } = options;
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const events: QueueEvents = {
    queued: () => {},
    sent: () => {},
    retried: () => {},
    dropped: () => {},
    handedOver: () => {},
    ...options.events,
  };
  const share = { bytes: limits.maxBytes / 2, envelopes: Math.floor(limits.maxEnvelopes / 2) };

  /** Oldest first. */
  const waiting: Waiting[] = [];
  const held = {
    envelopes: { server: 0, browser: 0 } as Record<Source, number>,
    bytes: { server: 0, browser: 0 } as Record<Source, number>,
  };
  /** Envelopes being written (counted against their share from the start). */
  let writes = 0;
  let sending = 0;
  let failuresInARow = 0;
  /** No attempt before this (a backoff, or the ingest's Retry-After). */
  let resumeAt = 0;
  let rateLimits: RateLimits = {};
  let timer: NodeJS.Timeout | null = null;
  let timerAt = 0;
  let stopped = false;
  let settledWaiters: (() => void)[] = [];
  const directs = new Set<Direct>();

  /** How many waiting entries (or entries being written) hold each event id. */
  const eventIds = new Map<string, number>();
  const countEventId = (eventId: string | undefined, sign: 1 | -1) => {
    if (eventId === undefined) return;
    const now = (eventIds.get(eventId) ?? 0) + sign;
    if (now > 0) eventIds.set(eventId, now);
    else eventIds.delete(eventId);
  };
  const count = (entry: StoredEntry, sign: 1 | -1) => {
    held.envelopes[entry.source] += sign;
    held.bytes[entry.source] += sign * entry.bytes;
    countEventId(entry.eventId, sign);
  };
  const forget = (entry: Waiting) => {
    const at = waiting.indexOf(entry);
    // Stryker disable next-line ConditionalExpression: every entry forgotten waits (hold puts each in line first); a guard.
    if (at >= 0) waiting.splice(at, 1);
    count(entry, -1);
    void store.remove(entry);
  };
  const settledNow = () => {
    if (writes > 0) return;
    const waiters = settledWaiters;
    settledWaiters = [];
    for (const resolve of waiters) resolve();
  };

  const limited = (entry: StoredEntry, at: number) =>
    entry.categories.length > 0 &&
    entry.categories.every((category) => isRateLimited(rateLimits, category as DataCategory, at));

  function failed(reason: RetryReason, retryAfter: string | null) {
    events.retried(reason);
    failuresInARow += 1;
    const backoff = Math.min(limits.maxBackoffMs, limits.minBackoffMs * 2 ** (failuresInARow - 1));
    const jittered = backoff * (0.8 + 0.4 * random());
    const asked = retryAfter ? parseRetryAfterHeader(retryAfter, now()) : 0;
    resumeAt = now() + Math.min(Math.max(jittered, asked), limits.maxAgeMs);
    schedule(resumeAt);
  }

  function schedule(at: number) {
    if (stopped) return;
    // Stryker disable next-line EqualityOperator: a timer set again for the same moment changes nothing.
    if (timer && timerAt <= at) return;
    if (timer) clearTimeout(timer);
    timerAt = at;
    timer = setTimeout(
      () => {
        timer = null;
        drain();
      },
      Math.max(0, at - now()),
    );
    timer.unref();
  }

  function expire(at: number) {
    for (const entry of [...waiting]) {
      if (entry.sending || at - entry.queuedAt <= limits.maxAgeMs) continue;
      forget(entry);
      events.dropped(entry.source, 'expired');
    }
  }

  /** Sends what waits, oldest first; one at a time until the ingest has answered once. */
  function drain() {
    if (stopped) return;
    const at = now();
    expire(at);
    if (at < resumeAt) return schedule(resumeAt);
    const allowed = failuresInARow > 0 ? 1 : limits.concurrency;
    for (const entry of waiting) {
      if (sending >= allowed) return;
      if (entry.sending) continue;
      if (limited(entry, at)) continue;
      void attempt(entry);
    }
    // Entries held only by a rate limit: looked at again when the first limit could have ended.
    // The mutants marked below only add a wake-up that finds nothing to do: here every entry not
    // being sent is limited (the loop above sent the others), a limited entry's limit ends after
    // `at`, and a limit ending at `at` is over.
    // Stryker disable next-line ConditionalExpression,LogicalOperator: see above.
    if (waiting.some((entry) => !entry.sending && limited(entry, at))) {
      // Stryker disable next-line EqualityOperator: see above.
      const ends = Object.values(rateLimits).filter((end) => end > at);
      // Stryker disable next-line ConditionalExpression,EqualityOperator: see above.
      if (ends.length > 0) schedule(Math.min(...ends));
    }
  }

  async function attempt(entry: Waiting) {
    entry.sending = true;
    sending += 1;
    try {
      let body: Uint8Array;
      try {
        body = await store.read(entry);
      } catch {
        forget(entry);
        events.dropped(entry.source, 'unreadable');
        return;
      }
      const { verdict } = await heard(send(body, entry.headers));
      if (verdict === 'waits') return;
      forget(entry);
      if (verdict === 'taken') events.sent(entry.source);
      else events.dropped(entry.source, 'rejected');
    } finally {
      entry.sending = false;
      sending -= 1;
      settledNow();
      drain();
    }
  }

  /**
   * What one exchange with the ingest means for the envelope, the back-off and the rate limits:
   * it waits (no answer, 5xx, 429: the limit is noted), or it is done with, taken (2xx) or
   * rejected (any other 4xx, which no retry would change).
   */
  async function heard(exchange: Promise<IngestAnswer>): Promise<Heard> {
    let reply: IngestAnswer;
    try {
      reply = await exchange;
    } catch (error) {
      failed(failureReason(error), null);
      return { verdict: 'waits', reply: null };
    }
    if (reply.status >= 500) {
      failed('status_5xx', reply.retryAfter);
      return { verdict: 'waits', reply };
    }
    if (reply.status === 429) {
      rateLimits = updateRateLimits(rateLimits, transportResponseOf(reply), now());
      events.retried('rate_limited');
      return { verdict: 'waits', reply };
    }
    failuresInARow = 0;
    return { verdict: reply.status >= 200 && reply.status < 300 ? 'taken' : 'rejected', reply };
  }

  /** Whether `bytes` more of `source` fit in its share. */
  const fits = (source: Source, bytes: number) =>
    held.envelopes[source] + 1 <= share.envelopes && held.bytes[source] + bytes <= share.bytes;

  /** Makes room for `bytes` of `source`, or says it cannot. */
  function makeRoom(source: Source, bytes: number, error: boolean): boolean {
    while (!fits(source, bytes)) {
      // The server's own error reports outrank its transactions and sessions; a browser's share
      // refuses instead, and the browser keeps what it could not hand over.
      if (source !== 'server' || !error) return false;
      const victim = waiting.find((entry) => entry.source === 'server' && !entry.error && !entry.sending);
      if (!victim) return false;
      forget(victim);
      events.dropped('server', 'evicted');
    }
    return true;
  }

  /** Writes the envelope to the store and puts it in line: the entry, or why it could not wait. */
  async function hold(
    source: Source,
    body: Uint8Array,
    headers: Record<string, string>,
    queuedAt: number,
  ): Promise<Waiting | 'full'> {
    const facts: EntryFacts = { source, queuedAt, headers, ...factsOf(body) };
    if (body.length > share.bytes) {
      events.dropped(source, 'too_large');
      return 'full';
    }
    if (!makeRoom(source, body.length, facts.error)) {
      events.dropped(source, 'full');
      return 'full';
    }
    writes += 1;
    // Counted now, so that envelopes arriving while this one is written see its bytes.
    held.envelopes[source] += 1;
    held.bytes[source] += body.length;
    countEventId(facts.eventId, 1);
    try {
      const entry: Waiting = { ...(await store.put(facts, body)), sending: false };
      waiting.push(entry);
      // Ids sort by when they were made; an entry written late still goes in its place. (Ids are
      // unique, so no two compare equal.)
      // Stryker disable next-line EqualityOperator: ids are unique, so no two compare equal.
      waiting.sort((a, b) => (a.id < b.id ? -1 : 1));
      events.queued(source);
      schedule(resumeAt);
      return entry;
    } catch (error) {
      held.envelopes[source] -= 1;
      held.bytes[source] -= body.length;
      countEventId(facts.eventId, -1);
      log('warn', 'reporting.queue_write_failed', {
        reason: (error as NodeJS.ErrnoException).code ?? 'unknown',
      });
      events.dropped(source, 'disk_error');
      return 'full';
    } finally {
      writes -= 1;
      settledNow();
    }
  }

  const outcomeOf = async (pending: Waiting | 'full' | Promise<Waiting | 'full'>): Promise<Submitted> =>
    (await pending) === 'full' ? { kind: 'full' } : { kind: 'queued' };

  async function submit(
    source: Source,
    raw: Uint8Array | string,
    headers: Record<string, string> = {},
  ): Promise<Submitted> {
    const queuedAt = now();
    // Later envelopes wait behind earlier ones, and nothing is tried while the ingest is down.
    // Stryker disable next-line EqualityOperator: at exactly resumeAt the back-off's timer drains it at once either way.
    if (stopped || waiting.length > 0 || writes > 0 || queuedAt < resumeAt) {
      return outcomeOf(hold(source, toBytes(raw), headers, queuedAt));
    }
    // As it came (a string from the SDK): copied to bytes only if it has to wait.
    let bytes: Uint8Array | null = null;
    const body = () => (bytes ??= toBytes(raw));
    // Sent at once; written only if it fails, or if the process is told to stop meanwhile. Written
    // while still on its way, its entry is marked as being sent, so that no drain sends it twice.
    const direct: Direct = {
      keep: () =>
        hold(source, body(), headers, queuedAt).then((entry) => {
          if (entry !== 'full' && directs.has(direct)) entry.sending = true;
          return entry;
        }),
      kept: null,
    };
    directs.add(direct);
    sending += 1;
    let outcome: Heard;
    try {
      outcome = await heard(send(raw, headers));
    } finally {
      directs.delete(direct);
      sending -= 1;
      settledNow();
    }
    const persisted = direct.kept ? await direct.kept : null;
    if (persisted && persisted !== 'full') persisted.sending = false;
    if (outcome.verdict === 'waits') {
      const kept = persisted ?? (await (direct.kept = direct.keep()));
      // A 429 is passed back too, so that the sender honours the limit; the envelope is sent
      // again once its categories' limit ends.
      const { reply } = outcome;
      return reply?.status === 429 ? { kind: 'answered', reply } : outcomeOf(kept);
    }
    const { reply } = outcome;
    // Written at shutdown while it was on its way: it arrived, so it no longer waits.
    if (persisted && persisted !== 'full') forget(persisted);
    return { kind: 'answered', reply };
  }

  return {
    submit,
    stats: () => {
      const oldest = waiting[0];
      return {
        envelopes: { ...held.envelopes },
        bytes: { ...held.bytes },
        oldestAgeSeconds: oldest ? Math.max(0, (now() - oldest.queuedAt) / 1000) : 0,
        memoryBytes: store.memoryBytes(),
      };
    },
    start: async () => {
      const left = await store.load();
      for (const entry of left) {
        // An earlier process's entries count against the bounds like any other; past them, the
        // newest are let go (the oldest are nearest their turn).
        if (!fits(entry.source, entry.bytes)) {
          void store.remove(entry);
          events.dropped(entry.source, 'full');
          continue;
        }
        count(entry, 1);
        waiting.push({ ...entry, sending: false });
      }
      if (waiting.length > 0) {
        log('info', 'reporting.queue_resumed', { envelopes: waiting.length });
        schedule(now());
      }
    },
    persist: (timeoutMs) =>
      new Promise<void>((resolve) => {
        for (const direct of directs) direct.kept ??= direct.keep();
        if (writes === 0) return resolve();
        const timeout = setTimeout(resolve, timeoutMs);
        timeout.unref();
        settledWaiters.push(() => {
          clearTimeout(timeout);
          resolve();
        });
      }),
    stop,
    handOver: async (give, { concurrency, signal }) => {
      stop();
      const offered = new Set<Waiting>();
      let given = 0;
      const handOne = async (entry: Waiting) => {
        // Offered once: no other hand-off worker takes it up meanwhile.
        offered.add(entry);
        let taken = false;
        try {
          const body = await store.read(entry);
          const { source, headers, queuedAt } = entry;
          taken = await give({ source, body, headers, queuedAt });
        } catch {
          // Unreadable, or `give` failed: it stays where it is.
        }
        if (!taken) return;
        // Removed before the process may exit, so a restart on the same folder never sends it again.
        waiting.splice(waiting.indexOf(entry), 1);
        count(entry, -1);
        await store.remove(entry);
        given += 1;
        events.handedOver(entry.source, 'out');
      };
      // What is left to offer, oldest first, taken in turn by the workers; looked for again once
      // they reach its end (so picking costs the same for 10,000 envelopes as for 10).
      let batch: Waiting[] = [];
      let next = 0;
      const pick = (): Waiting | undefined => {
        // Stryker disable next-line ConditionalExpression: looking again at every pick finds the same next entry; only the cost grows (with the square of what waits).
        if (next >= batch.length) {
          batch = waiting.filter((candidate) => !candidate.sending && !offered.has(candidate));
          next = 0;
        }
        return batch[next++];
      };
      const worker = async () => {
        while (!signal.aborted) {
          const entry = pick();
          if (entry) {
            await handOne(entry);
            continue;
          }
          // Every entry offered, or on its way to the ingest (sent before the stop): those that
          // come back unsent are offered too.
          if (!waiting.some((candidate) => candidate.sending)) return;
          await new Promise((resolve) => setTimeout(resolve, HAND_OVER_POLL_MS));
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      return { given, left: waiting.length };
    },
    adopt: async ({ source, body, headers, queuedAt }) => {
      if (stopped) return 'full';
      const { eventId } = factsOf(body);
      if (eventId !== undefined && eventIds.has(eventId)) return 'known';
      // Never dated later than now: a peer's clock must not make an envelope outlive the age bound.
      const entry = await hold(source, body, headers, Math.min(queuedAt, now()));
      if (entry === 'full') return 'full';
      events.handedOver(source, 'in');
      return 'queued';
    },
  };

  function stop() {
    stopped = true;
    if (timer) clearTimeout(timer);
    timer = null;
  }
}

/** How often a hand-off looks again for envelopes that were on their way to the ingest. */
const HAND_OVER_POLL_MS = 50;

/** The server's queue, made at start (lib/server/start.ts) and used by code Next bundles. */
export const reportQueueSlot = processSlot<ReportQueue>('reportQueue');
