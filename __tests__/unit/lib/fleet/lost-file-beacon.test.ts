import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerLostFileBeacon } from '../../../../lib/fleet/lost-file-beacon';
import { recorderSlot } from '../../../../lib/metrics/record';
import { rawRequest } from '../../../support/http';

let server: Server;
let base: string;
let counted: string[];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const url = req.url ?? '/';
    answerLostFileBeacon(req, res, url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  counted = [];
  recorderSlot.write({
    tunnel: () => {},
    report: () => {},
    fleet: () => {},
    lostFile: (recovery) => counted.push(recovery),
  });
});
afterEach(() => recorderSlot.clear());

describe("a page's beacon that it lost a build file", () => {
  it.each(['reload', 'none'])('counts recovery=%s and answers 204, never cached', async (recovery) => {
    const answer = await rawRequest(base, `/lost-file?recovery=${recovery}`, { method: 'POST' });
    expect(answer.status).toBe(204);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(counted).toEqual([recovery]);
  });

  it('refuses any other recovery with 400, counting nothing', async () => {
    for (const query of ['', 'recovery=', 'recovery=reload2', 'recovery=RELOAD', 'other=reload']) {
      const answer = await rawRequest(base, `/lost-file?${query}`, { method: 'POST' });
      expect(answer.status).toBe(400);
    }
    expect(counted).toEqual([]);
  });

  it('answers anything but POST with 405 and Allow', async () => {
    const answer = await rawRequest(base, '/lost-file?recovery=reload');
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(counted).toEqual([]);
  });

  it('closes the connection rather than read a body sent with it', async () => {
    const answer = await rawRequest(base, '/lost-file?recovery=reload', {
      method: 'POST',
      body: 'x'.repeat(10_000),
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.connection).toBe('close');
  });
});
