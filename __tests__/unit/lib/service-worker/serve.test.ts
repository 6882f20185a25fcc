import http, { type Server } from 'node:http';
import { recorderWith } from '../../../support/recorder';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BEACONS_PER_WINDOW } from '@lib/http/beacon';
import { recorderSlot } from '@lib/metrics/record';
import { readWorkerScripts, serviceWorkerStage, type WorkerStage } from '@lib/service-worker/serve';
import { rawRequest } from '../../../support/http';

const SCRIPT = Buffer.from('self.addEventListener("install", () => {});');
const FRENCH = Buffer.from('self.addEventListener("install", () => {}); // fr');
const SCRIPTS = new Map([
  ['en', SCRIPT],
  ['fr', FRENCH],
]);
let server: Server;
let base: string;
let stage: WorkerStage;
let counted: string[];
let passedOn: string[];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://x').pathname;
    if (!stage(req, res, pathname)) {
      passedOn.push(pathname);
      res.end('next');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  stage = serviceWorkerStage(SCRIPTS);
  counted = [];
  passedOn = [];
  recorderSlot.write(recorderWith({ outageScreen: (screen) => void counted.push(screen) }));
});
afterEach(() => recorderSlot.clear());

describe('the worker’s script', () => {
  it('is answered whole, checked with the server on every update (no-cache), allowed to control the origin', async () => {
    const answer = await rawRequest(base, '/_next/app-shell/worker.js');
    expect(answer.status).toBe(200);
    expect(answer.body).toBe(SCRIPT.toString());
    expect(answer.headers).toMatchObject({
      'content-type': 'text/javascript; charset=utf-8',
      'cache-control': 'no-cache',
      'service-worker-allowed': '/',
      'content-length': String(SCRIPT.length),
      vary: 'Accept-Language',
    });
  });

  it('is the one in the visitor’s language, whose screens the worker keeps; the default for any other', async () => {
    const french = await rawRequest(base, '/_next/app-shell/worker.js', {
      headers: { 'accept-language': 'fr-CA, en;q=0.5' },
    });
    expect(french.body).toBe(FRENCH.toString());
    expect(french.headers['content-length']).toBe(String(FRENCH.length));
    for (const header of ['de', '*', 'xx-YY', ',;q=', 'fr;q=0'])
      expect(
        (await rawRequest(base, '/_next/app-shell/worker.js', { headers: { 'accept-language': header } }))
          .body,
      ).toBe(SCRIPT.toString());
  });

  it('answers HEAD without a body, and anything else but GET with 405', async () => {
    expect((await rawRequest(base, '/_next/app-shell/worker.js', { method: 'HEAD' })).body).toBe('');
    const posted = await rawRequest(base, '/_next/app-shell/worker.js', { method: 'POST' });
    expect(posted.status).toBe(405);
    expect(posted.headers.allow).toBe('GET, HEAD');
  });

  it('is a 404 when the build has none: a browser’s registration fails, and nothing else happens', async () => {
    stage = serviceWorkerStage(null);
    expect((await rawRequest(base, '/_next/app-shell/worker.js')).status).toBe(404);
  });

  it('is read from the build, or is none', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'worker-'));
    try {
      expect(readWorkerScripts(root, '.next', ['en', 'fr'])).toBeNull();
      mkdirSync(path.join(root, '.next/service-worker'), { recursive: true });
      writeFileSync(path.join(root, '.next/service-worker/en.js'), SCRIPT);
      writeFileSync(path.join(root, '.next/service-worker/fr.js'), FRENCH);
      expect(readWorkerScripts(root, '.next', ['en', 'fr'])).toEqual(SCRIPTS);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a beacon that a visitor saw a screen', () => {
  // What a browser's service worker sends with its POST.
  const sameOrigin = { 'sec-fetch-site': 'same-origin' };
  const seen = (screen: string, headers: Record<string, string> = sameOrigin) =>
    rawRequest(base, `/_next/app-shell/screen-seen/${screen}`, { method: 'POST', headers });

  it.each(['offline', 'unavailable'])(
    'for %s is counted under its screen and answered 204, never cached',
    async (screen) => {
      const answer = await seen(screen);
      expect(answer.status).toBe(204);
      expect(answer.headers['cache-control']).toBe('no-store');
      expect(counted).toEqual([screen]);
    },
  );

  it.each(['', 'server-error', 'offline/more', '..%2foffline', 'x'.repeat(2000)])(
    'for a screen that is not one of the two (%p) is a 404, and counts nothing: the labels stay two',
    async (screen) => {
      const answer = await rawRequest(base, `/_next/app-shell/screen-seen/${screen}`, { method: 'POST' });
      expect(answer.status).toBe(404);
      expect(counted).toEqual([]);
    },
  );

  it('answers anything but POST with 405, counting nothing', async () => {
    const answer = await rawRequest(base, '/_next/app-shell/screen-seen/offline');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(counted).toEqual([]);
  });

  it('refuses a body unread, closing the connection, and counts nothing', async () => {
    const answer = await rawRequest(base, '/_next/app-shell/screen-seen/offline', {
      method: 'POST',
      headers: sameOrigin,
      body: 'x'.repeat(10_000),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(counted).toEqual([]);
  });

  it("refuses another site's page, counting nothing", async () => {
    const answer = await rawRequest(base, '/_next/app-shell/screen-seen/offline', {
      method: 'POST',
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(answer.status).toBe(403);
    expect(counted).toEqual([]);
  });

  it('refuses one with neither Sec-Fetch-Site nor Origin (a bare curl), counting nothing', async () => {
    const answer = await seen('offline', {});
    expect(answer.status).toBe(403);
    expect(counted).toEqual([]);
  });

  // Last of the file's beacons: it spends this process's offline window for the minute.
  it("has a window per screen: the offline screen's spent leaves the unavailable screen's whole", async () => {
    const statuses: number[] = [];
    // 50 at a time, to the bound and one past it.
    for (let sent = 0; sent < BEACONS_PER_WINDOW; sent += 50)
      for (const answer of await Promise.all(Array.from({ length: 50 }, () => seen('offline'))))
        statuses.push(answer.status);
    statuses.push((await seen('offline')).status);
    expect(statuses.filter((status) => status === 204).length).toBeLessThanOrEqual(BEACONS_PER_WINDOW);
    expect(statuses.at(-1)).toBe(429);
    counted = [];
    expect((await seen('unavailable')).status).toBe(204);
    expect(counted).toEqual(['unavailable']);
  });
});

it('leaves every other path alone', async () => {
  for (const other of ['/', '/_next/app-shell/worker.js.map', '/_next/app-shell/screen-seen', '/orders'])
    await rawRequest(base, other);
  expect(passedOn).toEqual([
    '/',
    '/_next/app-shell/worker.js.map',
    '/_next/app-shell/screen-seen',
    '/orders',
  ]);
});
