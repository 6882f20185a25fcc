/**
 * `npm start` as the README has a newcomer type it, against the production build the suite made:
 * it serves, stops cleanly on SIGTERM (which npm passes on), and a port already taken is one line.
 */
import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { startServerProcess } from '../../scripts/lib/server-process';
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { freePort } from '../support/server';

const env = { HOST: '127.0.0.1', NEXT_DIST_DIR: PRODUCTION_DIST };

it('serves the build, and drains and exits 0 on SIGTERM', async () => {
  const server = await startServerProcess({
    command: 'npm',
    args: ['start'],
    cwd: ROOT,
    env,
    readyPath: '/api/health/ready',
    timeoutMs: 30_000,
  });
  try {
    const response = await fetch(`${server.url}/no-such-page`);
    expect(response.status).toBe(404);
    expect(await response.text()).toMatch(/<h1[^>]*>Page not found<\/h1>/);
  } finally {
    expect(await server.stop()).toBe(0);
  }
  expect(server.output()).toMatch(/"event":"lifecycle\.draining"/);
});

// MANAGEMENT_PORT too: its listener's thread boots beside the rest of the start (lib/server/start.ts),
// and a port it cannot have still stops the start before the server listens.
it.each(['PORT', 'MANAGEMENT_PORT'])(
  'says in one line which port is taken (%s), with no stack',
  async (setting) => {
    const port = await freePort();
    const other = setting === 'PORT' ? { MANAGEMENT_PORT: '0' } : { PORT: String(await freePort()) };
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(port, '127.0.0.1', resolve));
    try {
      const result = spawnSync('npm', ['start'], {
        cwd: ROOT,
        env: { ...process.env, ...env, ...other, [setting]: String(port) },
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(result.status).toBe(1);
      const ours = `${result.stdout}\n${result.stderr}`
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('> '));
      // The one line of the failure, after the start's own info lines (config loaded, Next ready…).
      const failures = ours.filter((line) => /"level":"(error|fatal)"/.test(line) || !line.startsWith('{'));
      expect(failures).toEqual([
        expect.stringContaining(`Port ${port} is already in use (${setting}): stop what listens there`),
      ]);
      // The public port was never listened on: no line says so.
      expect(ours.join('\n')).not.toMatch(/"event":"server\.listening"/);
      expect(ours.join('\n')).not.toMatch(/\\n\s+at |^\s+at /m);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  },
);
