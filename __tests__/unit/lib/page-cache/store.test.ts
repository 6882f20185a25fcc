import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { recorderWith } from '../../../support/recorder';
import { until } from '../../../support/until';
import { recorderSlot } from '@lib/metrics/record';
import { connectStore, reconnectDelayMs, storeAddress, type PageStore } from '@lib/page-cache/store';

describe('the store connection', () => {
  it('reconnects after 50 ms, doubling, at most every 1 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 50, 5000].map(reconnectDelayMs)).toEqual([
      50, 100, 200, 400, 800, 1000, 1000, 1000, 1000,
    ]);
  });

  it('names the store by scheme, host and port in a log line, never its password', () => {
    expect(storeAddress('redis://:s3cret@valkey:6379/0')).toBe('redis://valkey:6379');
    expect(storeAddress('rediss://user:s3cret@cache.example.net')).toBe('rediss://cache.example.net');
    expect(storeAddress('not a url')).toBe('the store');
  });

  it('names the store without its user, database or options either', () => {
    expect(storeAddress('redis://app-shell@valkey:6380/3?timeout=5')).toBe('redis://valkey:6380');
    expect(storeAddress('redis://[::1]:6379')).toBe('redis://[::1]:6379');
  });
});

/**
 * A Redis server in this process, as much of one as the store uses (RESP3: HELLO, GET, SET, MULTI,
 * PUBLISH, SUBSCRIBE), that records what it is asked and can hold its answers or drop everyone.
 */
function fakeRedis() {
  const values = new Map<string, string>();
  const commands: string[][] = [];
  const sockets = new Set<Socket>();
  const subscribers = new Map<string, Set<Socket>>();
  const state = { holdGets: false };
  /** GETs held, each with how to answer it. */
  const held: (() => void)[] = [];
  let server: Server | undefined;
  let port = 0;

  // Text is read and written as latin1, one character a byte, so a length is a length in bytes.
  const bulk = (text: string) => `$${text.length}\r\n${text}\r\n`;
  const push = (...parts: string[]) => `>${parts.length}\r\n${parts.join('')}`;

  const answer = (socket: Socket, args: string[], inMulti: { queued: string[][] | null }): string | null => {
    const name = args[0].toUpperCase();
    if (inMulti.queued && name !== 'EXEC') {
      inMulti.queued.push(args);
      return '+QUEUED\r\n';
    }
    switch (name) {
      case 'HELLO':
        return '%1\r\n+proto\r\n:3\r\n';
      case 'PING':
        return '+PONG\r\n';
      case 'GET': {
        const value = values.get(args[1]);
        const reply = value === undefined ? '_\r\n' : bulk(value);
        if (!state.holdGets) return reply;
        held.push(() => socket.write(reply, 'latin1'));
        return null;
      }
      case 'SET':
        values.set(args[1], args[2]);
        return '+OK\r\n';
      case 'PUBLISH': {
        const listening = subscribers.get(args[1]) ?? new Set();
        for (const subscriber of listening)
          subscriber.write(push(bulk('message'), bulk(args[1]), bulk(args[2])), 'latin1');
        return `:${listening.size}\r\n`;
      }
      case 'SUBSCRIBE': {
        const listening = subscribers.get(args[1]) ?? new Set();
        listening.add(socket);
        subscribers.set(args[1], listening);
        return push(bulk('subscribe'), bulk(args[1]), ':1\r\n');
      }
      case 'MULTI':
        inMulti.queued = [];
        return '+OK\r\n';
      case 'EXEC': {
        const queued = inMulti.queued ?? [];
        inMulti.queued = null;
        const replies = queued.map((queuedArgs) => answer(socket, queuedArgs, inMulti) ?? '_\r\n');
        return `*${replies.length}\r\n${replies.join('')}`;
      }
      default:
        // CLIENT SETINFO and the like: the client takes an error for "not supported".
        return '-ERR unknown command\r\n';
    }
  };

  /** The commands in `buffer` (arrays of bulk strings), and what is left of it. */
  const parse = (buffer: string): { parsed: string[][]; rest: string } => {
    const parsed: string[][] = [];
    let at = 0;
    for (;;) {
      const start = at;
      if (buffer[at] !== '*') return { parsed, rest: buffer.slice(start) };
      const lineEnd = buffer.indexOf('\r\n', at);
      if (lineEnd < 0) return { parsed, rest: buffer.slice(start) };
      const count = Number(buffer.slice(at + 1, lineEnd));
      at = lineEnd + 2;
      const args: string[] = [];
      for (let n = 0; n < count; n += 1) {
        const sizeEnd = buffer.indexOf('\r\n', at);
        if (sizeEnd < 0) return { parsed, rest: buffer.slice(start) };
        const size = Number(buffer.slice(at + 1, sizeEnd));
        if (buffer.length < sizeEnd + 2 + size + 2) return { parsed, rest: buffer.slice(start) };
        args.push(buffer.slice(sizeEnd + 2, sizeEnd + 2 + size));
        at = sizeEnd + 2 + size + 2;
      }
      parsed.push(args);
    }
  };

  const listen = async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.setEncoding('latin1');
      const inMulti = { queued: null as string[][] | null };
      let pending = '';
      socket.on('data', (chunk: string) => {
        const { parsed, rest } = parse(pending + chunk);
        pending = rest;
        for (const args of parsed) {
          commands.push(args);
          const reply = answer(socket, args, inMulti);
          if (reply !== null) socket.write(reply, 'latin1');
        }
      });
      socket.on('error', () => {});
      socket.on('close', () => {
        sockets.delete(socket);
        for (const listening of subscribers.values()) listening.delete(socket);
      });
    });
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    port = (server.address() as AddressInfo).port;
  };

  return {
    values,
    commands,
    state,
    listen,
    get url() {
      return `redis://:s3cret@127.0.0.1:${port}`;
    },
    /** Answers the GETs held, late. */
    release: () => {
      state.holdGets = false;
      for (const answerLate of held.splice(0)) answerLate();
    },
    /** Every connection dropped, and no new one taken: the store is away. */
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      if (server) {
        const closed = once(server, 'close');
        server.close();
        await closed;
      }
      server = undefined;
    },
  };
}

/** A port on which nothing listens. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('the store', () => {
  let counted: string[];
  let lines: { event?: string; [field: string]: unknown }[];
  let store: PageStore | undefined;
  let redis: ReturnType<typeof fakeRedis>;

  beforeEach(() => {
    counted = [];
    lines = [];
    recorderSlot.write(
      recorderWith({
        pageCache: (event, amount, label) => {
          if (event !== 'store_seconds')
            counted.push([event, label, amount].filter((part) => part !== undefined).join(' '));
        },
      }),
    );
    // The logger's JSON lines are kept; anything else (Jest's own output) goes through.
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream) as (chunk: string | Uint8Array) => boolean;
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        const text = String(chunk);
        if (!text.startsWith('{"level":')) return write(chunk);
        for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        return true;
      });
    }
    redis = fakeRedis();
  });

  afterEach(async () => {
    // A connection closes once its commands are answered.
    redis.release();
    await store?.close();
    store = undefined;
    await redis.stop();
    jest.restoreAllMocks();
    recorderSlot.clear();
  });

  const events = () => lines.map((line) => line.event).filter((event) => event?.startsWith('page_cache.'));

  it('reads what it was given, and writes a page with its expiry and its message in one transaction', async () => {
    await redis.listen();
    store = connectStore({ url: redis.url, timeoutMs: 1000 });
    await until(() => store!.up());
    await store.setAndPublish(
      'app-shell:page:b:/shoe',
      '{"html":"é"}',
      604800,
      'app-shell:page:b:written',
      'm',
    );
    const transaction = redis.commands.slice(redis.commands.findIndex(([name]) => name === 'MULTI'));
    expect(transaction).toEqual([
      ['MULTI'],
      ['SET', 'app-shell:page:b:/shoe', Buffer.from('{"html":"é"}').toString('latin1'), 'EX', '604800'],
      ['PUBLISH', 'app-shell:page:b:written', 'm'],
      ['EXEC'],
    ]);
    expect(await store.get('app-shell:page:b:/shoe')).toBe('{"html":"é"}');
    expect(await store.get('app-shell:page:b:/none')).toBeNull();
    expect(counted).toEqual([]);
  });

  it('hears the messages on the channel it listens to, and only those', async () => {
    await redis.listen();
    store = connectStore({ url: redis.url, timeoutMs: 1000 });
    const heard: string[] = [];
    store.listen('app-shell:page:b:written', (message) => heard.push(message));
    await until(() => store!.up() && redis.commands.some(([name]) => name.toUpperCase() === 'SUBSCRIBE'));
    await store.publish('app-shell:page:other:written', 'not for us');
    await store.publish('app-shell:page:b:written', '{"from":"peer","key":"/shoe"}');
    await until(() => heard.length > 0);
    expect(heard).toEqual(['{"from":"peer","key":"/shoe"}']);
  });

  it('fails a read at once, without waiting for its time, while it is away', async () => {
    store = connectStore({ url: `redis://:s3cret@127.0.0.1:${await closedPort()}`, timeoutMs: 5000 });
    const started = performance.now();
    await expect(store.get('key')).rejects.toThrow('the store is not connected');
    await expect(store.setAndPublish('key', 'text', 60, 'channel', 'message')).rejects.toThrow();
    await expect(store.publish('channel', 'message')).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(store.up()).toBe(false);
    expect(counted.filter((line) => line.startsWith('store_error'))).toEqual([
      'store_error get 1',
      'store_error set 1',
      'store_error set 1',
    ]);
  });

  it('fails a read the store does not answer within its time, and counts it', async () => {
    await redis.listen();
    store = connectStore({ url: redis.url, timeoutMs: 100 });
    await until(() => store!.up());
    redis.state.holdGets = true;
    const started = performance.now();
    await expect(store.get('key')).rejects.toMatchObject({
      code: 'ETIMEDOUT',
      message: 'no answer from the store within 100 ms',
    });
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(95);
    expect(waited).toBeLessThan(1000);
    expect(counted).toEqual(['store_error get 1']);
  });

  it('times each command in seconds, under its operation, answered or not', async () => {
    const seconds: string[] = [];
    recorderSlot.write(
      recorderWith({
        pageCache: (event, amount, label) => {
          // A read held past its 100 ms: at least 0.1 s, and far under the 100 a reading in ms would be.
          if (event === 'store_seconds')
            seconds.push(`${label} ${amount >= 0.095 && amount < 5 ? 'about 0.1 s' : amount}`);
        },
      }),
    );
    await redis.listen();
    store = connectStore({ url: redis.url, timeoutMs: 100 });
    await until(() => store!.up());
    redis.state.holdGets = true;
    await expect(store.get('key')).rejects.toMatchObject({ code: 'ETIMEDOUT' });
    expect(seconds).toEqual(['get about 0.1 s']);
  });

  it('says once that it is away, however often it fails, and never its password', async () => {
    store = connectStore({ url: `redis://:s3cret@127.0.0.1:${await closedPort()}`, timeoutMs: 100 });
    // Several reconnections fail meanwhile (50, 100, 200 ms…).
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect(store.get('key')).rejects.toThrow();
    expect(events()).toEqual(['page_cache.store_down']);
    expect(lines.find((line) => line.event === 'page_cache.store_down')).toMatchObject({
      level: 'warn',
      store: expect.stringMatching(/^redis:\/\/127\.0\.0\.1:\d+$/),
      code: 'ECONNREFUSED',
    });
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('says once when it goes and once when it is back, and tells who asked only when it is back', async () => {
    await redis.listen();
    store = connectStore({ url: redis.url, timeoutMs: 100 });
    let backs = 0;
    store.onBack(() => {
      backs += 1;
    });
    await until(() => store!.up());
    // The first connection is the start, not a return.
    expect(backs).toBe(0);
    expect(events()).toEqual(['page_cache.store_up']);
    await redis.stop();
    await until(() => !store!.up());
    // Reconnections fail for a while.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events()).toEqual(['page_cache.store_up', 'page_cache.store_down']);
    await redis.listen();
    await until(() => store!.up(), 3000);
    await until(() => backs > 0);
    expect(backs).toBe(1);
    expect(events()).toEqual(['page_cache.store_up', 'page_cache.store_down', 'page_cache.store_up']);
    // Each line says which store, and the one of its going says what the visitors get meanwhile.
    expect(lines.filter((line) => line.event === 'page_cache.store_up')).toEqual([
      expect.objectContaining({
        level: 'info',
        store: expect.stringMatching(/^redis:\/\/127\.0\.0\.1:\d+$/),
      }),
      expect.objectContaining({
        level: 'info',
        store: expect.stringMatching(/^redis:\/\/127\.0\.0\.1:\d+$/),
      }),
    ]);
    expect(lines.find((line) => line.event === 'page_cache.store_down')).toMatchObject({
      message: expect.stringContaining('until the store is back'),
    });
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('says nothing of going away when it is closed', async () => {
    await redis.listen();
    store = connectStore({ url: redis.url, timeoutMs: 100 });
    await until(() => store!.up());
    await store.close();
    expect(store.up()).toBe(false);
    // Anything the closed connections would have said is said by now.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(events()).toEqual(['page_cache.store_up']);
  });
});
