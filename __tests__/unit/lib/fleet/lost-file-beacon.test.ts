import http, { type Server } from 'node:http';
import { recorderWith } from '../../../support/recorder';
import type { AddressInfo } from 'node:net';
import { answerLostFileBeacon } from '@lib/fleet/lost-file-beacon';
import { recorderSlot } from '@lib/metrics/record';
import { rawRequest } from '../../../support/http';

let server: Server;
let base: string;
let counted: number;

beforeAll(async () => {
  server = http.createServer(answerLostFileBeacon);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  counted = 0;
  recorderSlot.write(
    recorderWith({
      lostFileReload: () => {
        counted += 1;
      },
    }),
  );
});
afterEach(() => recorderSlot.clear());

// What navigator.sendBeacon sends with its POST.
const sameOrigin = { 'sec-fetch-site': 'same-origin' };

describe("a page's beacon that it reloaded for a lost build file", () => {
  it('is counted and answered 204, never cached', async () => {
    const answer = await rawRequest(base, '/lost-file', { method: 'POST', headers: sameOrigin });
    expect(answer.status).toBe(204);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(counted).toBe(1);
  });

  it('answers anything but POST with 405 and Allow, counting nothing', async () => {
    const answer = await rawRequest(base, '/lost-file');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(counted).toBe(0);
  });

  it('refuses a body unread, closing the connection, and counts nothing', async () => {
    const answer = await rawRequest(base, '/lost-file', {
      method: 'POST',
      headers: sameOrigin,
      body: 'x'.repeat(10_000),
    });
    expect(answer.status).toBe(413);
    expect(answer.headers.connection).toBe('close');
    expect(counted).toBe(0);
  });

  it("refuses another site's page, counting nothing", async () => {
    const answer = await rawRequest(base, '/lost-file', {
      method: 'POST',
      headers: { 'sec-fetch-site': 'cross-site' },
    });
    expect(answer.status).toBe(403);
    expect(counted).toBe(0);
  });

  it('refuses one with neither Sec-Fetch-Site nor Origin (a bare curl), counting nothing', async () => {
    const answer = await rawRequest(base, '/lost-file', { method: 'POST' });
    expect(answer.status).toBe(403);
    expect(counted).toBe(0);
  });
});
