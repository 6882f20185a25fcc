// Every line the production server writes is one JSON object: on start, while it answers pages,
// missing pages, API routes and errors, and on SIGTERM. (A start with a bad SENTRY_DSN is one JSON
// line too: configuration.test.ts.) Next's own console output included.
import { rawRequest } from '../support/http';
import { SECRET_CASES } from '../support/secrets';
import { FIXTURE_DIST } from '../support/paths';
import { startServer } from '../support/server';

describe('the server’s output', () => {
  it('is one JSON object per line, with time, level and event, from start to exit', async () => {
    const server = await startServer({ distDir: FIXTURE_DIST });
    let code: number | null;
    try {
      for (const target of [
        '/',
        '/missing',
        '/__fixtures__/server-error',
        '/api/__fixtures__/throws',
        '/api/nope',
        '/api/health',
        `/search?${'a=1&'.repeat(300)}`,
        // Pages that throw errors whose messages carry each secret of the table.
        ...SECRET_CASES.map((_, index) => `/__fixtures__/server-secrets/x?case=${index}`),
      ])
        await rawRequest(server.url, target);
    } finally {
      code = await server.stop();
    }
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const notJson = lines.filter((line) => {
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        return !(
          typeof entry.time === 'string' &&
          typeof entry.level === 'string' &&
          typeof entry.event === 'string'
        );
      } catch {
        return true;
      }
    });
    expect(notJson).toEqual([]);
    const events = lines.map((line) => (JSON.parse(line) as { event: string }).event);
    // The server did what the test asked of it, and said so in those lines.
    expect(events).toEqual(
      expect.arrayContaining([
        'server.listening',
        'lifecycle.ready',
        'server.error',
        'lifecycle.draining',
        'lifecycle.closed',
      ]),
    );
    expect(code).toBe(0);
    // Next prints each of those errors too: scrubbed like the reports, no secret in any line.
    expect(
      SECRET_CASES.filter(({ secret }) => server.output().includes(secret)).map(({ shape }) => shape),
    ).toEqual([]);
    expect(server.output()).toContain('Fixture server secret 0');
  });
});
