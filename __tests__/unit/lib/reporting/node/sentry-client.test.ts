// The server's Sentry sender on its own: what reaches an ingest, and that no secret of the table
// (__tests__/support/secrets.ts) does, wherever in the error it travels.
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseEnvelope } from '@sentry/core';
import { lifecycleState, resetLifecycle } from '@lib/lifecycle/state';
import { createSentrySender, type SentrySender } from '@lib/reporting/node/sentry-client';
import { SECRET_CASES } from '../../../../support/secrets';

let ingest: Server;
let received: string[];
let send: SentrySender;

/** Runs the before-exit task the sender registered: resolves once every report is sent. */
async function flush(): Promise<void> {
  await lifecycleState().beforeExit.get('error-reports')!();
}

beforeAll(async () => {
  resetLifecycle();
  received = [];
  ingest = createServer((req, res) => {
    let body = '';
    req.setEncoding('latin1');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push(body);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  ingest.listen(0, '127.0.0.1');
  await once(ingest, 'listening');
  send = createSentrySender({
    dsn: `http://publickey@127.0.0.1:${(ingest.address() as AddressInfo).port}/1`,
    release: 'r1',
    environment: 'test',
  });
});

afterAll(async () => {
  // Nothing may still be on its way when the file ends: a send finishing after Jest tore this
  // file's globals down runs into the next file in the same worker.
  await flush();
  ingest.closeAllConnections();
  ingest.close();
});

function events(): Record<string, unknown>[] {
  return received.flatMap((raw) =>
    parseEnvelope(raw)[1]
      .filter(([header]) => header.type === 'event')
      .map(([, payload]) => payload as Record<string, unknown>),
  );
}

const context = { route: '/orders/[id]', method: 'POST', status: 500, mechanism: 'onRequestError:route' };

describe('the server sender', () => {
  it('sends one event under the given id, with route, method, status and the path it is given', async () => {
    const before = events().length;
    send(new Error('database unreachable'), 'a'.repeat(32), context, '/orders/[id]?token=[Filtered]');
    await flush();
    const sent = events().slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toEqual(
      expect.objectContaining({
        event_id: 'a'.repeat(32),
        release: 'r1',
        environment: 'test',
        transaction: 'POST /orders/[id]',
        request: { method: 'POST', url: '/orders/[id]?token=[Filtered]' },
        tags: expect.objectContaining({
          route: '/orders/[id]',
          method: 'POST',
          status: '500',
          reference: 'AAAAAAAA',
          mechanism: 'onRequestError:route',
        }),
      }),
    );
    expect(sent[0]!.user).toBeUndefined();
  });

  it.each(SECRET_CASES.map((c, index) => [c.shape, index] as const))(
    'sends no %s in the message',
    async (_shape, index) => {
      const { text, secret } = SECRET_CASES[index]!;
      const error = new Error(`Server secret ${index}: ${text}`);
      const before = events().length;
      send(error, `${index}`.padStart(32, 'b'), context, undefined);
      await flush();
      const sent = events().slice(before);
      // Sent, so the check below looks at a real report.
      expect(sent).toHaveLength(1);
      const raw = JSON.stringify(sent[0]);
      expect(raw).toContain(`Server secret ${index}:`);
      expect(raw).not.toContain(secret);
      expect(raw).not.toContain(encodeURIComponent(secret));
    },
  );

  it('never throws, whatever it is handed, and still reports it', async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const before = events().length;
    expect(() => send(cyclic, 'c'.repeat(32), context, undefined)).not.toThrow();
    expect(() => send(null, 'd'.repeat(32), context, undefined)).not.toThrow();
    await flush();
    expect(
      events()
        .slice(before)
        .map((event) => event.event_id)
        .sort(),
    ).toEqual(['c'.repeat(32), 'd'.repeat(32)]);
  });
});
