/**
 * @jest-environment @stryker-mutator/jest-runner/jest-env/jsdom
 */
// The browser's transport to the tunnel: what the tunnel's answer means for a report. A 5xx of any
// kind (the tunnel's "try later", the server failing) keeps it in IndexedDB to send later; any other
// answer, 4xx included, is final. IndexedDB is fake-indexeddb's; the network is a stub of fetch.
import { setImmediate as nodeImmediate } from 'node:timers';
import { TextDecoder, TextEncoder } from 'node:util';
import { deserialize, serialize } from 'node:v8';
import 'fake-indexeddb/auto';
import { createEnvelope, type Envelope, type Transport } from '@sentry/core';
import { KEPT_IN_BROWSER, tunnelTransport } from '@lib/reporting/browser/transport';

// What a browser has and Jest's jsdom leaves out (needed when a report is stored, not at import):
// fake-indexeddb clones what it stores, and the SDK encodes envelopes as UTF-8.
Object.assign(globalThis, {
  structuredClone: (value: unknown) => deserialize(serialize(value)),
  TextEncoder,
  TextDecoder,
});

const STORE = 'queue';
/** Each test's own database, as a new visitor's browser would have. */
let db: string;
let databases = 0;

/** What the transport kept, counted in IndexedDB where the SDK keeps it. */
function keptCount(): Promise<number> {
  return new Promise((resolve, reject) => {
    const open = indexedDB.open(db);
    open.onupgradeneeded = () => open.result.createObjectStore(STORE);
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const count = open.result.transaction(STORE, 'readonly').objectStore(STORE).count();
      count.onsuccess = () => {
        open.result.close();
        resolve(count.result);
      };
      count.onerror = () => reject(count.error);
    };
  });
}

const report = (n: number): Envelope =>
  createEnvelope({ event_id: String(n).padStart(32, '0') }, [
    [{ type: 'event' }, { message: `report ${n}` }],
  ]);

let answered: number[];
let transport: Transport;

beforeEach(() => {
  // Retries are timers the offline transport starts; none may run while a test looks. (IndexedDB
  // schedules with Node's own setImmediate, which stays real.)
  jest.useFakeTimers();
  databases += 1;
  db = `reports-${databases}`;
  answered = [];
  transport = tunnelTransport({
    url: 'http://127.0.0.1/tunnel',
    recordDroppedEvent: () => {},
    dbName: db,
  } as Parameters<typeof tunnelTransport>[0]);
});

afterEach(() => {
  jest.clearAllTimers();
  jest.useRealTimers();
});

/** The tunnel answering `status` to every report. */
function tunnelAnswers(status: number) {
  global.fetch = jest.fn(async () => {
    answered.push(status);
    // (What the SDK reads of an answer: jsdom has no Response.)
    return { status, headers: { get: () => null } } as unknown as Response;
  }) as typeof fetch;
}

describe('a report the tunnel answers', () => {
  it.each([500, 502, 503, 504])('%i: is kept in the browser to send later', async (status) => {
    tunnelAnswers(status);
    await transport.send(report(1));
    expect(answered).toEqual([status]);
    expect(await keptCount()).toBe(1);
  });

  it.each([200, 400, 403, 413, 429, 499])('%i: is not kept', async (status) => {
    tunnelAnswers(status);
    await transport.send(report(1));
    expect(answered).toEqual([status]);
    expect(await keptCount()).toBe(0);
  });
});

it(`keeps at most ${KEPT_IN_BROWSER} reports while the tunnel fails`, async () => {
  tunnelAnswers(503);
  for (let n = 1; n <= KEPT_IN_BROWSER + 5; n += 1) await transport.send(report(n));
  expect(await keptCount()).toBe(KEPT_IN_BROWSER);
});

it('sends what an earlier page kept as the next page starts, with no new report to carry it', async () => {
  tunnelAnswers(503);
  await transport.send(report(1));
  expect(await keptCount()).toBe(1);
  // The next page: the last one's timers gone, a new transport on the same database, the tunnel
  // taking reports again.
  jest.clearAllTimers();
  answered = [];
  tunnelAnswers(200);
  tunnelTransport({
    url: 'http://127.0.0.1/tunnel',
    recordDroppedEvent: () => {},
    dbName: db,
  } as Parameters<typeof tunnelTransport>[0]);
  for (let i = 0; i < 50 && answered.length === 0; i += 1) {
    await jest.advanceTimersByTimeAsync(1000);
    await new Promise((resolve) => nodeImmediate(resolve));
  }
  expect(answered).toEqual([200]);
});
