// Server-side reporting with a DSN: the report goes to Sentry (an ingest on loopback here), with the
// reference id _error shows, and no JSON line is written in its place.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lifecycleState, resetLifecycle } from '../../../../../lib/lifecycle/state';
import { initServerReporting, reportServerError } from '../../../../../lib/reporting/node/reporter';
import { until } from '../../../../support/until';

let ingest: Server;
const bodies: string[] = [];

beforeAll(async () => {
  resetLifecycle();
  ingest = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(body);
      res.writeHead(200).end('{}');
    });
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  await initServerReporting({
    dsn: `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`,
    release: 'r1',
    environment: 'test',
  });
});

afterAll(async () => {
  await lifecycleState().beforeExit.get('error-reports')!();
  ingest.closeAllConnections();
  ingest.close();
});

it('sends the report to Sentry with its reference, and writes no line in its place', async () => {
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const id = reportServerError(new Error('database down'), {
      route: '/orders/[id]',
      method: 'GET',
      status: 500,
      path: '/orders/7',
    });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    await until(() => bodies.length === 1, 3000);
    expect(bodies[0]).toContain(`"event_id":"${id}"`);
    expect(bodies[0]).toContain('database down');
    expect(String(stderr.mock.calls)).not.toContain('server.error');
  } finally {
    stderr.mockRestore();
  }
});
