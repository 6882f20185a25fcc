/** @jest-environment node */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NextApiRequest, NextApiResponse } from 'next';
import health from '../../pages/api/health';

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => health(req as NextApiRequest, res as unknown as NextApiResponse));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('/api/health', () => {
  it('answers GET with pass as health+json, not cached', async () => {
    const res = await fetch(`${base}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/health+json; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toEqual({ status: 'pass' });
  });

  it('answers HEAD with the same status and headers and no body', async () => {
    const get = await fetch(`${base}/api/health`);
    const head = await fetch(`${base}/api/health`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    for (const name of ['content-type', 'cache-control', 'content-length']) {
      expect(head.headers.get(name)).toBe(get.headers.get(name));
    }
    expect(await head.text()).toBe('');
  });

  it('answers OPTIONS with 204 and Allow', async () => {
    const res = await fetch(`${base}/api/health`, { method: 'OPTIONS' });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
  });

  it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('answers %s with 405 and Allow', async (method) => {
    const res = await fetch(`${base}/api/health`, { method, body: method === 'DELETE' ? undefined : '{}' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect((await res.json()).status).toBe('fail');
  });
});
