// The shared store of the page cache (PAGE_CACHE_URL: Redis or Valkey), through node-redis's client,
// which the Redis project keeps: one connection for reads and writes, one for the invalidations every
// instance listens to. What the page cache needs of it is small (./page-cache.ts): get and set a text
// with an expiry, publish and hear an invalidation, and whether it is up. A store that fails makes
// every call fail fast, never wait: commands are not queued while it is away (disableOfflineQueue),
// and each waits at most `timeoutMs` for its answer.
import { createClient } from '@redis/client';
import { log } from '../log/logger';
import { recordPageCache } from '../metrics/record';

export interface PageStore {
  /** The text under `key`, null when there is none; rejects when the store cannot answer in time. */
  get: (key: string) => Promise<string | null>;
  /** Keeps `text` under `key` for `ttlSeconds`, and tells every instance listening on `channel`. */
  setAndPublish: (
    key: string,
    text: string,
    ttlSeconds: number,
    channel: string,
    message: string,
  ) => Promise<void>;
  /** Tells every instance listening on `channel`. */
  publish: (channel: string, message: string) => Promise<void>;
  /** Calls `listener` with every message on `channel`. */
  listen: (channel: string, listener: (message: string) => void) => void;
  /** Called each time the store answers again after it was away (invalidations may have been missed). */
  onBack: (listener: () => void) => void;
  /** Whether both connections are open and ready now. */
  up: () => boolean;
  close: () => Promise<void>;
}

export interface StoreOptions {
  url: string;
  /** The most a command waits for its answer. */
  timeoutMs: number;
}

/** Where the store is, for a log line: its host and port, never its password. */
export function storeAddress(url: string): string {
  try {
    const { protocol, hostname, port } = new URL(url);
    return `${protocol}//${hostname}${port ? `:${port}` : ''}`;
  } catch {
    return 'the store';
  }
}

/** How long to wait before reconnecting: doubling from 50 ms, at most 1 s (a store back is used within 5 s). */
export function reconnectDelayMs(retries: number): number {
  return Math.min(50 * 2 ** Math.min(retries, 10), 1000);
}

class StoreTimeout extends Error {
  code = 'ETIMEDOUT';
}

/** `promise`, or a rejection once `ms` have passed; the command itself goes on and its answer is dropped. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StoreTimeout(`no answer from the store within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export function connectStore({ url, timeoutMs }: StoreOptions): PageStore {
  const address = storeAddress(url);
  const options = {
    url,
    disableOfflineQueue: true,
    // A store that answers nothing at all is as bad as one that is away: at most this many wait.
    commandsQueueMaxLength: 1000,
    socket: { connectTimeout: Math.max(timeoutMs, 1000), reconnectStrategy: reconnectDelayMs },
    // A connection a firewall dropped without a word is found within a few seconds.
    pingInterval: 2000,
  };
  const client = createClient(options);
  // Its subscription waits for the connection (and is made again after each reconnection).
  const subscriber = client.duplicate({ disableOfflineQueue: false });
  const backListeners: (() => void)[] = [];
  // Logged once when the store goes and once when it is back, not once a request.
  let wasUp: boolean | null = null;

  const up = () => client.isReady && subscriber.isReady;
  // Set by close(): the connections ending then is the stop, not the store going away.
  let closing = false;
  const changed = (why: string, error?: unknown) => {
    if (closing) return;
    const now = up();
    // One connection ready while the other is not yet is no news; a failure of either is.
    if (now === wasUp || (!now && why === 'ready')) return;
    const before = wasUp;
    wasUp = now;
    if (now) {
      log('info', 'page_cache.store_up', { store: address });
      // The first ready of both is the start, not a return.
      if (before === false) for (const listener of backListeners) listener();
      return;
    }
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    log('warn', 'page_cache.store_down', {
      store: address,
      why,
      ...(code ? { code } : {}),
      message:
        "Pages are served from this instance's memory and the build, and rendered here, until the store is back.",
    });
  };

  for (const connection of [client, subscriber]) {
    // Without a listener an 'error' event would throw; each is a reason the store is down.
    connection.on('error', (error: unknown) => changed('error', error));
    connection.on('end', () => changed('closed'));
    connection.on('reconnecting', () => changed('reconnecting'));
    connection.on('ready', () => changed('ready'));
    // Never awaited: the server starts, and serves, with the store away.
    connection.connect().catch((error: unknown) => changed('connect', error));
  }

  const timed = async <T>(operation: 'get' | 'set', run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      if (!client.isReady) throw new StoreTimeout('the store is not connected');
      return await within(run(), timeoutMs);
    } catch (error) {
      recordPageCache('store_error', 1, operation);
      throw error;
    } finally {
      recordPageCache('store_seconds', (performance.now() - started) / 1000, operation);
    }
  };

  return {
    get: (key) => timed('get', () => client.get(key)),
    setAndPublish: (key, text, ttlSeconds, channel, message) =>
      timed('set', async () => {
        await client.multi().set(key, text, { EX: ttlSeconds }).publish(channel, message).exec();
      }),
    publish: (channel, message) =>
      timed('set', async () => {
        await client.publish(channel, message);
      }),
    listen: (channel, listener) => {
      subscriber
        .subscribe(channel, (message: string) => listener(message))
        .catch((error: unknown) => {
          changed('subscribe', error);
        });
    },
    onBack: (listener) => {
      backListeners.push(listener);
    },
    up,
    close: async () => {
      closing = true;
      await Promise.allSettled([client.close(), subscriber.close()]);
    },
  };
}
