// Configuration at start, as a user sets it: a .env file beside the app (loaded the way Next loads
// it) or the environment, and a bad value stopping the start with one line. Each case runs the
// compiled server from a folder of its own, so no test writes a .env into the repository.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServerProcess } from '../../scripts/lib/server-process';
import { rawRequest } from '../support/http';
import { PRODUCTION_DIST, ROOT } from '../support/paths';
import { freePort } from '../support/server';

let app: string;

beforeEach(() => {
  app = mkdtempSync(path.join(tmpdir(), 'app-shell-config-'));
  cpSync(path.join(ROOT, 'dist'), path.join(app, 'dist'), { recursive: true });
  // No next.config.ts: the server starts from the build's resolved config alone.
  for (const name of ['node_modules', 'package.json', 'public']) {
    symlinkSync(path.join(ROOT, name), path.join(app, name));
  }
  symlinkSync(path.join(ROOT, PRODUCTION_DIST), path.join(app, '.next'));
});

afterEach(() => rmSync(app, { recursive: true, force: true }));

const SERVER = () => path.join(app, 'dist/lib/server/start.js');

/** The environment of a fresh shell: none of the settings under test. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, NEXT_TELEMETRY_DISABLED: '1' };
  for (const name of ['PORT', 'HOST', 'NEXT_DIST_DIR', 'SHUTDOWN_DRAIN_MS']) delete env[name];
  for (const name of Object.keys(env)) if (name.startsWith('HEALTH_')) delete env[name];
  return { ...env, ...extra };
}

/** Starts the server expecting it to refuse; returns its exit code and what it printed. */
function failedStart(env: NodeJS.ProcessEnv) {
  const result = spawnSync(process.execPath, [SERVER()], {
    cwd: app,
    env,
    encoding: 'utf8',
    timeout: 20_000,
  });
  const lines = `${result.stdout}${result.stderr}`.split('\n').filter(Boolean);
  return { status: result.status, lines };
}

/**
 * Starts the server from the folder and waits until it is ready on `port`; with
 * `setPortVariable: false` the environment names no PORT, so the server must find it itself.
 */
function startInFolder(port: number, setPortVariable: boolean) {
  return startServerProcess({
    command: process.execPath,
    args: [SERVER()],
    cwd: app,
    env: cleanEnv() as Record<string, string>,
    port,
    setPortVariable,
    readyPath: '/api/health/ready',
    timeoutMs: 30_000,
  });
}

describe('configuration at start', () => {
  it('listens on the PORT a .env file names, when the environment names none', async () => {
    const port = await freePort();
    writeFileSync(path.join(app, '.env'), `PORT=${port}\nHOST=127.0.0.1\n`);
    const server = await startInFolder(port, false);
    try {
      expect((await rawRequest(server.url, '/api/health/ready')).status).toBe(200);
      expect(server.output()).toContain(`"event":"server.listening","host":"127.0.0.1","port":${port}`);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('lets the environment win over .env, as Next does', async () => {
    const [fromFile, fromEnv] = [await freePort(), await freePort()];
    writeFileSync(path.join(app, '.env'), `PORT=${fromFile}\nHOST=127.0.0.1\n`);
    const server = await startInFolder(fromEnv, true);
    try {
      expect(server.output()).toContain(`"port":${fromEnv}`);
      expect(server.output()).not.toContain(`"port":${fromFile}`);
    } finally {
      await server.stop();
    }
  });

  it.each([
    [
      '.env',
      'SHUTDOWN_DRAIN_MS',
      'abc',
      'SHUTDOWN_DRAIN_MS must be a whole number from 0 to 600000 (got \\"abc\\")',
    ],
    [
      'environment',
      'SHUTDOWN_DRAIN_MS',
      '-5',
      'SHUTDOWN_DRAIN_MS must be a whole number from 0 to 600000 (got \\"-5\\")',
    ],
    [
      '.env',
      'HEALTH_EVENT_LOOP_DELAY_MS_FAIL',
      'soon',
      'HEALTH_EVENT_LOOP_DELAY_MS_FAIL must be a whole number',
    ],
    [
      'environment',
      'HEALTH_HEAP_USED_RATIO_WARN',
      '2',
      'HEALTH_HEAP_USED_RATIO_WARN must be a number from 0.01 to 1',
    ],
    // Set to nothing, the hand-off would be off with nothing said until a stop loses the reports.
    ['environment', 'REPORT_HANDOFF_SECRET', '', 'REPORT_HANDOFF_SECRET is set but empty'],
    ['.env', 'REPORT_HANDOFF_SECRET', '   ', 'REPORT_HANDOFF_SECRET is set but empty'],
    [
      'environment',
      'REPORT_HANDOFF_SECRET',
      'a'.repeat(32),
      'REPORT_HANDOFF_SECRET repeats too few characters',
    ],
    // Sentry's parser prints its own `Invalid Sentry Dsn: …` line for this one; it must not appear.
    [
      'environment',
      'SENTRY_DSN',
      'https://publickey@sentry.example.com/',
      'SENTRY_DSN is malformed: Sentry cannot parse it',
    ],
  ])('stops with exit 1 and one line when %s sets %s=%s', (where, name, value, words) => {
    if (where === '.env') writeFileSync(path.join(app, '.env'), `${name}=${value}\n`);
    const { status, lines } = failedStart(cleanEnv(where === 'environment' ? { [name]: value } : {}));
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    // A setting to fix is said as its sentence, without a stack (lib/server/cannot-start.ts).
    expect(JSON.parse(lines[0]!)).toEqual({
      level: 'error',
      time: expect.any(String),
      event: 'server.cannot_start',
      message: expect.stringMatching(/^Invalid configuration: /),
    });
    expect(lines[0]).toContain(words);
  });

  it('shows a refused URL without its user, password or query', () => {
    const { status, lines } = failedStart(
      cleanEnv({
        FLEET_PEERS: 'http://10.0.0.1:3000,https://admin:hunter22@peer.example:3000/?token=t0k3n#frag',
      }),
    );
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('FLEET_PEERS has \\"https://peer.example:3000/\\" must start with http://');
    expect(lines[0]).not.toMatch(/admin|hunter22|t0k3n|frag/);
  });

  it.each([
    [
      'a HOST that resolves to nothing',
      { HOST: 'no-such-host.invalid' },
      'HOST no-such-host.invalid names no address this machine can find: set HOST to an address of this machine',
    ],
    [
      'a HOST that is not an address of this machine',
      { HOST: '192.0.2.1' },
      'HOST 192.0.2.1 is not an address of this machine: set HOST to an address of this machine',
    ],
    [
      'PORT equal to MANAGEMENT_PORT',
      { PORT: '4567', MANAGEMENT_PORT: '4567' },
      'MANAGEMENT_PORT must differ from PORT (got 4567 for both)',
    ],
    [
      'a REPORT_QUEUE_DIR under /proc, where a folder never gets made',
      { SENTRY_DSN: 'https://publickey@127.0.0.1:9/1', REPORT_QUEUE_DIR: '/proc/app-shell-queue' },
      'REPORT_QUEUE_DIR /proc/app-shell-queue did not answer within 5 s',
    ],
    [
      'a REPORT_QUEUE_DIR where a file is',
      { SENTRY_DSN: 'https://publickey@127.0.0.1:9/1', REPORT_QUEUE_DIR: '/etc/hostname' },
      'REPORT_QUEUE_DIR /etc/hostname cannot be used (EEXIST)',
    ],
  ])('stops with exit 1 and one line naming the cause for %s', (_case, env, words) => {
    const { status, lines } = failedStart(cleanEnv(env));
    expect(status).toBe(1);
    const errors = lines.filter((line) => line.includes('"level":"error"'));
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!)).toEqual({
      level: 'error',
      time: expect.any(String),
      event: 'server.cannot_start',
      message: expect.stringContaining(words),
    });
    expect(lines.join('\n')).not.toContain('"stack"');
  });

  it('names every bad variable in that one line', () => {
    writeFileSync(path.join(app, '.env'), 'SHUTDOWN_DRAIN_MS=abc\n');
    const { status, lines } = failedStart(cleanEnv({ HEALTH_HEAP_USED_RATIO_FAIL: 'lots', PORT: '99999' }));
    expect(status).toBe(1);
    expect(lines).toHaveLength(1);
    for (const name of ['PORT', 'SHUTDOWN_DRAIN_MS', 'HEALTH_HEAP_USED_RATIO_FAIL'])
      expect(lines[0]).toContain(name);
  });
});

describe('configuration at build', () => {
  const DIST = '.next-bad-config';

  afterEach(() => rmSync(path.join(ROOT, DIST), { recursive: true, force: true }));

  it('stops `npm run build` with exit 1 and one line naming every bad variable, before building anything', () => {
    const result = spawnSync('npm', ['run', '--silent', 'build'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NEXT_TELEMETRY_DISABLED: '1',
        NEXT_DIST_DIR: DIST,
        SENTRY_DSN: 'not a dsn',
        SENTRY_TUNNEL_PATH: 'no-slash',
      },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const errors = result.stderr.split('\n').filter(Boolean);
    expect(result.status).toBe(1);
    expect(errors).toEqual([
      'Invalid error-reporting configuration: SENTRY_DSN is malformed: it is not a URL; SENTRY_TUNNEL_PATH must be one path segment of 3-64 letters, digits, - or _, such as /t7q2x (got "no-slash").',
    ]);
    expect(existsSync(path.join(ROOT, DIST, 'BUILD_ID'))).toBe(false);
  });
});
