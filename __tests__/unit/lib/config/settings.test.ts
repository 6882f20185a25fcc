import { randomBytes } from 'node:crypto';
import { readSettings, settings, settingsSlot, thresholdsOf } from '@lib/config/settings';
import { VARIABLES } from '@lib/config/variables';
import { REFUSED } from '../../../support/refused-values';

const DSN = 'https://abc123@o1.ingest.example.io/42';
const NO_BUILD_DSN = { dsnAtBuild: null };

describe('readSettings refuses a bad value of every start-time variable', () => {
  const startRows = Object.values(VARIABLES).filter((row) => row.readAt !== 'build');
  const cases = startRows.flatMap((row) =>
    (REFUSED[row.name] ?? []).map((value) => [row.name, value] as const),
  );

  it('has cases for every start-time variable that can refuse a value', () => {
    const refusing = startRows.filter((row) => REFUSED[row.name] !== null);
    expect(new Set(cases.map(([name]) => name)).size).toBe(refusing.length);
  });

  it.each(cases)('%s=%p stops the start, naming it', (name, value) => {
    expect(() => readSettings({ [name]: value }, NO_BUILD_DSN)).toThrow(
      new RegExp(`^Invalid configuration: .*${name} `),
    );
  });
});

describe('readSettings', () => {
  it('has defaults for a plain machine', () => {
    expect(readSettings({}, NO_BUILD_DSN)).toEqual({
      port: 3000,
      reportHandoffSecret: null,
      reportHandoffTimeoutMs: 5000,
      reportQueueDir: null,
      reportQueueMaxAgeSeconds: 86400,
      reportQueueMaxBytes: 67108864,
      reportQueueMaxEnvelopes: 10000,
      host: '0.0.0.0',
      drainMs: 0,
      shutdownTimeoutMs: 10_000,
      keepAliveTimeoutMs: 65_000,
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      maxConnections: 2048,
      connectionsCheckIntervalMs: 1000,
      eventLoopDelayWarnMs: 200,
      eventLoopDelayFailMs: 1000,
      heapUsedWarnRatio: 0.85,
      heapUsedFailRatio: 0.95,
      checkReuseMs: 1000,
      managementPort: 9464,
      logLevel: 'info',
      livenessWedgeMs: 10_000,
      sentryDsn: null,
      sentryInDevelopment: '0',
      distDir: '.next',
      fleetPeers: null,
      fleetFetchTimeoutMs: 3000,
      pageCacheUrl: null,
      pageCacheTimeoutMs: 100,
      pageCacheTtlSeconds: 604_800,
      pageCacheMemoryMb: 50,
    });
  });

  it('reads FLEET_PEERS as base URLs and DNS names', () => {
    expect(
      readSettings(
        { FLEET_PEERS: ' http://10.0.3.7:3000/, dns:app-shell-peers:3000 ,http://peer' },
        NO_BUILD_DSN,
      ).fleetPeers,
    ).toEqual([
      { kind: 'url', base: 'http://10.0.3.7:3000' },
      { kind: 'dns', name: 'app-shell-peers', port: 3000 },
      { kind: 'url', base: 'http://peer' },
    ]);
  });

  it('drains for 5 s by default on Kubernetes', () => {
    expect(readSettings({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, NO_BUILD_DSN).drainMs).toBe(5000);
  });

  it('reads PORT, HOST, the shutdown settings and the health thresholds', () => {
    expect(
      readSettings(
        {
          PORT: '8080',
          HOST: '127.0.0.1',
          SHUTDOWN_DRAIN_MS: '250',
          SHUTDOWN_TIMEOUT_MS: '3000',
          HEALTH_EVENT_LOOP_DELAY_MS_WARN: '50',
          HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '400',
          HEALTH_HEAP_USED_RATIO_WARN: '0.5',
          HEALTH_HEAP_USED_RATIO_FAIL: '0.75',
        },
        NO_BUILD_DSN,
      ),
    ).toEqual(
      expect.objectContaining({
        port: 8080,
        host: '127.0.0.1',
        drainMs: 250,
        shutdownTimeoutMs: 3000,
        eventLoopDelayWarnMs: 50,
        eventLoopDelayFailMs: 400,
        heapUsedWarnRatio: 0.5,
        heapUsedFailRatio: 0.75,
        checkReuseMs: 1000,
      }),
    );
  });

  it('reads the connection limits and the health reuse time', () => {
    expect(
      readSettings(
        {
          HEADERS_TIMEOUT_MS: '5000',
          REQUEST_TIMEOUT_MS: '20000',
          MAX_CONNECTIONS: '100',
          CONNECTIONS_CHECK_INTERVAL_MS: '250',
          HEALTH_CHECK_REUSE_MS: '0',
        },
        NO_BUILD_DSN,
      ),
    ).toEqual(
      expect.objectContaining({
        headersTimeoutMs: 5000,
        requestTimeoutMs: 20_000,
        maxConnections: 100,
        connectionsCheckIntervalMs: 250,
        checkReuseMs: 0,
      }),
    );
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(() => readSettings({ HEADERS_TIMEOUT_MS: '40000' }, NO_BUILD_DSN)).toThrow(
      'Invalid configuration: HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS (got 40000 and 30000).',
    );
  });

  it('refuses a management port that is the app port: its listener would have no port of its own', () => {
    expect(() => readSettings({ PORT: '4567', MANAGEMENT_PORT: '4567' }, NO_BUILD_DSN)).toThrow(
      'Invalid configuration: MANAGEMENT_PORT must differ from PORT (got 4567 for both): the probes and /metrics listen on a port of their own.',
    );
    expect(() => readSettings({ MANAGEMENT_PORT: '3000' }, NO_BUILD_DSN)).toThrow(
      'MANAGEMENT_PORT must differ from PORT',
    );
  });

  it('takes ports one apart, and 0 for both (a free port, and no management listener)', () => {
    expect(readSettings({ PORT: '4567', MANAGEMENT_PORT: '4568' }, NO_BUILD_DSN)).toMatchObject({
      port: 4567,
      managementPort: 4568,
    });
    expect(readSettings({ PORT: '0', MANAGEMENT_PORT: '0' }, NO_BUILD_DSN)).toMatchObject({
      port: 0,
      managementPort: 0,
    });
  });

  it('names every bad variable in one line', () => {
    expect(() =>
      readSettings(
        { PORT: 'eighty', SHUTDOWN_DRAIN_MS: 'abc', HEALTH_HEAP_USED_RATIO_FAIL: '1.5', SENTRY_DSN: 'nope' },
        NO_BUILD_DSN,
      ),
    ).toThrow(
      new Error(
        'Invalid configuration: SENTRY_DSN is malformed: it is not a URL; ' +
          'PORT must be a whole number from 0 to 65535 (got "eighty"); ' +
          'SHUTDOWN_DRAIN_MS must be a whole number from 0 to 600000 (got "abc"); ' +
          'HEALTH_HEAP_USED_RATIO_FAIL must be a number from 0.01 to 1 (got "1.5").',
      ),
    );
  });

  it.each([
    ['HEALTH_EVENT_LOOP_DELAY_MS_WARN', 'soon', 'must be a whole number from 1 to 600000'],
    ['HEALTH_EVENT_LOOP_DELAY_MS_FAIL', '0', 'must be a whole number from 1 to 600000'],
    ['HEALTH_HEAP_USED_RATIO_WARN', '-0.2', 'must be a number from 0.01 to 1'],
    ['KEEP_ALIVE_TIMEOUT_MS', '12.5', 'must be a whole number from 1000 to 600000'],
  ])('refuses %s=%p', (name, value, problem) => {
    expect(() => readSettings({ [name]: value }, NO_BUILD_DSN)).toThrow(`${name} ${problem}`);
  });

  it('refuses a hand-off secret shorter than 32 characters without repeating it', () => {
    const short = 'hunter2-hunter2-hunter2-hunter2';
    expect(short).toHaveLength(31);
    let message = '';
    try {
      readSettings({ REPORT_HANDOFF_SECRET: short }, NO_BUILD_DSN);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('REPORT_HANDOFF_SECRET must be at least 32 characters');
    expect(message).not.toContain('hunter2');
    expect(readSettings({ REPORT_HANDOFF_SECRET: `${short}!` }, NO_BUILD_DSN).reportHandoffSecret).toBe(
      `${short}!`,
    );
  });

  describe('the hand-off secret', () => {
    const refusal = (value: string) => {
      try {
        readSettings({ REPORT_HANDOFF_SECRET: value }, NO_BUILD_DSN);
      } catch (error) {
        return (error as Error).message;
      }
      return null;
    };

    it.each([
      ['empty', ''],
      ['only spaces', '   '],
    ])('set but %s stops the start in one line, rather than turn the hand-off off unsaid', (_, value) => {
      expect(refusal(value)).toBe(
        'Invalid configuration: REPORT_HANDOFF_SECRET is set but empty: set a secret (`openssl rand -hex 32`) or unset it.',
      );
    });

    it.each([
      ['one character', 'a'.repeat(32)],
      ['two characters in turn', 'ab'.repeat(16)],
      ['four characters in turn', 'abcd'.repeat(8)],
      // 9, 8, 4, 4, 4 and 3 of six characters: 78.7 bits.
      ['a mix just short of 80 bits', `${'a'.repeat(9)}${'b'.repeat(8)}ccccddddeeeefff`],
    ])('of 32 characters but %s stops the start, without repeating it', (_, value) => {
      expect(value).toHaveLength(32);
      const message = refusal(value);
      expect(message).toContain(
        'REPORT_HANDOFF_SECRET repeats too few characters to be a secret (under 80 bits by their frequencies)',
      );
      expect(message).not.toContain(value.slice(0, 8));
    });

    it('counts characters, not UTF-16 units: one emoji repeated is one character, 0 bits', () => {
      const message = refusal('😀'.repeat(80));
      expect(message).toContain('REPORT_HANDOFF_SECRET repeats too few characters to be a secret');
    });

    it('takes a secret of exactly 80 bits by its frequencies: two characters 8 times, four 4 times', () => {
      const value = `${'a'.repeat(8)}${'b'.repeat(8)}ccccddddeeeeffff`;
      expect(value).toHaveLength(32);
      expect(refusal(value)).toBeNull();
    });

    it('takes every one of 10,000 random 32-character hex strings (a seeded draw, so never a flake)', () => {
      let seed = 61;
      // mulberry32: a small generator whose draws are the same on every run.
      const next = () => {
        seed = (seed + 0x6d2b79f5) | 0;
        let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
        t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
        return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
      };
      const hex = () => Array.from({ length: 32 }, () => Math.floor(next() * 16).toString(16)).join('');
      const refused = Array.from({ length: 10_000 }, hex).filter((value) => refusal(value) !== null);
      expect(refused).toEqual([]);
    });

    it('unset leaves the hand-off off, and the start goes on', () => {
      expect(readSettings({}, NO_BUILD_DSN).reportHandoffSecret).toBeNull();
    });

    it('takes what `openssl rand -hex 32` writes', () => {
      const secret = randomBytes(32).toString('hex');
      expect(readSettings({ REPORT_HANDOFF_SECRET: secret }, NO_BUILD_DSN).reportHandoffSecret).toBe(secret);
    });
  });

  it('reads any other variable set to nothing as unset', () => {
    expect(readSettings({ PORT: '', FLEET_PEERS: '  ', REPORT_QUEUE_DIR: '' }, NO_BUILD_DSN)).toMatchObject({
      port: 3000,
      fleetPeers: null,
      reportQueueDir: null,
    });
  });

  it('refuses a warn threshold at or above its fail threshold', () => {
    expect(() =>
      readSettings(
        { HEALTH_EVENT_LOOP_DELAY_MS_WARN: '500', HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '500' },
        NO_BUILD_DSN,
      ),
    ).toThrow(
      'HEALTH_EVENT_LOOP_DELAY_MS_WARN must be below HEALTH_EVENT_LOOP_DELAY_MS_FAIL (got 500 and 500)',
    );
  });

  it.each([
    // A refused value is not compared as well: its own problem is the one to fix.
    [
      { HEALTH_EVENT_LOOP_DELAY_MS_WARN: 'soon', HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '100' },
      'HEALTH_EVENT_LOOP_DELAY_MS_WARN',
    ],
    [
      { HEALTH_EVENT_LOOP_DELAY_MS_WARN: '2000', HEALTH_EVENT_LOOP_DELAY_MS_FAIL: 'late' },
      'HEALTH_EVENT_LOOP_DELAY_MS_FAIL',
    ],
    [{ HEALTH_HEAP_USED_RATIO_WARN: '0.9', HEALTH_HEAP_USED_RATIO_FAIL: '2' }, 'HEALTH_HEAP_USED_RATIO_FAIL'],
  ])('names only the refused threshold of a pair: %p', (env, name) => {
    expect(() => readSettings(env, NO_BUILD_DSN)).toThrow(
      new RegExp(`^Invalid configuration: ${name} must be a [^;]*\\.$`),
    );
  });

  it('still compares a pair of thresholds when another variable is refused', () => {
    expect(() =>
      readSettings(
        { PORT: 'x', HEALTH_EVENT_LOOP_DELAY_MS_WARN: '500', HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '500' },
        NO_BUILD_DSN,
      ),
    ).toThrow(
      'PORT must be a whole number from 0 to 65535 (got "x"); ' +
        'HEALTH_EVENT_LOOP_DELAY_MS_WARN must be below HEALTH_EVENT_LOOP_DELAY_MS_FAIL (got 500 and 500).',
    );
  });

  it('takes a headers timeout equal to the request timeout', () => {
    const read = readSettings({ HEADERS_TIMEOUT_MS: '30000', REQUEST_TIMEOUT_MS: '30000' }, NO_BUILD_DSN);
    expect([read.headersTimeoutMs, read.requestTimeoutMs]).toEqual([30_000, 30_000]);
  });

  it('gives each measure its own pair of thresholds', () => {
    const read = readSettings(
      {
        HEALTH_EVENT_LOOP_DELAY_MS_WARN: '50',
        HEALTH_EVENT_LOOP_DELAY_MS_FAIL: '400',
        HEALTH_HEAP_USED_RATIO_WARN: '0.5',
        HEALTH_HEAP_USED_RATIO_FAIL: '0.75',
      },
      NO_BUILD_DSN,
    );
    expect(thresholdsOf('eventLoopDelay', read)).toEqual({ warn: 50, fail: 400 });
    expect(thresholdsOf('heapUsed', read)).toEqual({ warn: 0.5, fail: 0.75 });
  });

  describe('the DSN the server reports with', () => {
    it('is the one given at start when it matches the build', () => {
      expect(readSettings({ SENTRY_DSN: DSN }, { dsnAtBuild: DSN }).sentryDsn).toBe(DSN);
    });

    it("is the build's when none is given at start", () => {
      expect(readSettings({}, { dsnAtBuild: DSN }).sentryDsn).toBe(DSN);
      expect(readSettings({}, NO_BUILD_DSN).sentryDsn).toBeNull();
    });

    it('is none under `npm run dev`, so errors made while coding reach no project, unless SENTRY_IN_DEVELOPMENT=1', () => {
      expect(readSettings({ SENTRY_DSN: DSN }, { dsnAtBuild: DSN, dev: true }).sentryDsn).toBeNull();
      expect(readSettings({}, { dsnAtBuild: DSN, dev: true }).sentryDsn).toBeNull();
      expect(
        readSettings({ SENTRY_DSN: DSN, SENTRY_IN_DEVELOPMENT: '1' }, { dsnAtBuild: DSN, dev: true })
          .sentryDsn,
      ).toBe(DSN);
      // A production server never reads it.
      expect(
        readSettings({ SENTRY_DSN: DSN, SENTRY_IN_DEVELOPMENT: '0' }, { dsnAtBuild: DSN }).sentryDsn,
      ).toBe(DSN);
    });

    it('stops the start when it differs from the build, since the tunnel would refuse every envelope', () => {
      expect(() => readSettings({ SENTRY_DSN: 'https://other@host.example/1' }, { dsnAtBuild: DSN })).toThrow(
        /SENTRY_DSN differs from the one this build was made with/,
      );
    });
  });
});

describe('settings()', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    settingsSlot.clear();
    jest.restoreAllMocks();
  });

  it('reads the environment once and keeps what it read', () => {
    settingsSlot.clear();
    process.env.PORT = '4100';
    expect(settings().port).toBe(4100);
    process.env.PORT = '4200';
    expect(settings().port).toBe(4100);
  });

  it('logs a bad value and carries on with the defaults when no server checked it', () => {
    settingsSlot.clear();
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
    process.env.PORT = 'x';
    expect(settings().port).toBe(3000);
    const line = JSON.parse(String(stderr.mock.calls[0]?.[0])) as {
      event: string;
      error: { message: string };
    };
    expect(line.event).toBe('config.invalid');
    expect(line.error.message).toContain('PORT must be a whole number');
  });
});
