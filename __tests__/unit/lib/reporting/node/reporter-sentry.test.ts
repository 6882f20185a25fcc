// Server-side reporting with a DSN: the report goes to Sentry (the stand-in ingest here), with the
// reference id _error shows, and no JSON line is written in its place.
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { wasLogged } from '@lib/log/logged-errors';
import { initServerReporting, reportServerError } from '@lib/reporting/node/reporter';
import { type Ingest, startIngest } from '../../../../support/ingest';
import { freePort } from '../../../../support/server';

let ingest: Ingest;

beforeAll(async () => {
  resetLifecycle();
  ingest = await startIngest(await freePort());
  await initServerReporting({
    dsn: `http://publickey@127.0.0.1:${ingest.port}/1`,
    release: 'r1',
    environment: 'test',
  });
});

afterAll(async () => {
  await lifecycleState().beforeExit.get('error-reports')!();
  await ingest.stop();
});

it('sends the report to Sentry with its reference, and writes no line in its place', async () => {
  const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    const error = new Error('database down');
    const id = reportServerError(error, {
      route: '/orders/[id]',
      method: 'GET',
      status: 500,
      path: '/orders/7',
    });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    const [event] = await ingest.waitFor(() => {
      const found = ingest.eventsWithMessage('database down');
      return found.length > 0 ? found : undefined;
    });
    expect(event!.event_id).toBe(id);
    expect(String(stderr.mock.calls)).not.toContain('server.error');
    // No line of its own: Next's print of it stays the process's own record (lib/log/console.ts).
    expect(wasLogged(error)).toBe(false);
  } finally {
    stderr.mockRestore();
  }
});
