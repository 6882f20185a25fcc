import { readReportingConfig } from '@lib/config/reporting';
import { readVariable } from '@lib/config/variables';

const DSN = 'https://abc123@o1.ingest.example.io/42';

describe('readReportingConfig', () => {
  it('turns reporting off without SENTRY_DSN, the default on a fresh machine', () => {
    const config = readReportingConfig({}, { dev: false });
    expect(config).toEqual({ dsn: null, environment: 'production', tunnelPath: null, tracesSampleRate: 0 });
  });

  it('defaults the environment to production for builds and development under next dev', () => {
    expect(readReportingConfig({ SENTRY_DSN: DSN }, { dev: false }).environment).toBe('production');
    expect(readReportingConfig({ SENTRY_DSN: DSN }, { dev: true }).environment).toBe('development');
    expect(
      readReportingConfig({ SENTRY_DSN: DSN, SENTRY_ENVIRONMENT: 'staging' }, { dev: false }).environment,
    ).toBe('staging');
  });

  it('leaves the DSN out of a development build unless SENTRY_IN_DEVELOPMENT=1, so browsers load no SDK', () => {
    expect(readReportingConfig({ SENTRY_DSN: DSN }, { dev: true })).toEqual({
      dsn: null,
      environment: 'development',
      tunnelPath: null,
      tracesSampleRate: 0,
    });
    expect(readReportingConfig({ SENTRY_DSN: DSN, SENTRY_IN_DEVELOPMENT: '1' }, { dev: true }).dsn).toBe(DSN);
    expect(readReportingConfig({ SENTRY_DSN: DSN, SENTRY_IN_DEVELOPMENT: '0' }, { dev: false }).dsn).toBe(
      DSN,
    );
  });

  it('refuses a SENTRY_IN_DEVELOPMENT other than 0 or 1, in a production build too', () => {
    expect(() => readReportingConfig({ SENTRY_IN_DEVELOPMENT: 'true' }, { dev: false })).toThrow(
      /^Invalid error-reporting configuration: SENTRY_IN_DEVELOPMENT must be 0 or 1/,
    );
  });

  it("defaults the tunnel path to Sentry's hash of the DSN, which filter lists cannot match", () => {
    const config = readReportingConfig({ SENTRY_DSN: DSN }, { dev: false });
    // Sentry's getTunnelPath of DSN, worked out once by hand and written down here.
    expect(config.tunnelPath).toBe('/a6qqfl');
    expect(config.tunnelPath).toMatch(/^\/[a-z0-9]+$/);
    expect(config.tunnelPath).not.toMatch(/sentry|track|monitor|log|error|report/i);
  });

  it('lets SENTRY_TUNNEL_PATH choose the path', () => {
    expect(
      readReportingConfig({ SENTRY_DSN: DSN, SENTRY_TUNNEL_PATH: '/t7q2x' }, { dev: false }).tunnelPath,
    ).toBe('/t7q2x');
  });

  it.each([
    ['not a url', 'it is not a URL'],
    ['ftp://abc@host/1', 'it must start with https://'],
    ['https://host.example/1', 'it has no public key'],
    ['https://abc:secret@host.example/1', 'it contains a secret key'],
    ['https://abc@host.example/', 'Sentry cannot parse it'],
  ])('stops with one clear line on a malformed DSN: %s', (dsn, reason) => {
    expect(() => readReportingConfig({ SENTRY_DSN: dsn }, { dev: false })).toThrow(
      new RegExp(`^Invalid error-reporting configuration: SENTRY_DSN is malformed: ${reason}[^\\n]*\\.$`),
    );
  });

  it.each(['tunnel', '/a', '/api', '/_next', '/with/slash', '/has space', `/${'x'.repeat(70)}`])(
    'refuses the tunnel path %p',
    (path) => {
      expect(() =>
        readReportingConfig({ SENTRY_DSN: DSN, SENTRY_TUNNEL_PATH: path }, { dev: false }),
      ).toThrow(/SENTRY_TUNNEL_PATH must be one path segment/);
    },
  );

  it('names every problem at once', () => {
    expect(() =>
      readReportingConfig({ SENTRY_DSN: 'nope', SENTRY_TUNNEL_PATH: '/api' }, { dev: false }),
    ).toThrow(/SENTRY_DSN is malformed.*; SENTRY_TUNNEL_PATH must be/);
  });
});

describe('the SENTRY_DSN check', () => {
  const read = (value: string | undefined) => {
    const problems: string[] = [];
    return { value: readVariable('sentryDsn', { SENTRY_DSN: value }, problems), problems };
  };

  it('takes an unset or blank DSN as reporting off', () => {
    expect(read(undefined)).toEqual({ value: null, problems: [] });
    expect(read('  ')).toEqual({ value: null, problems: [] });
  });

  it('trims a good DSN, and names the variable in a problem without repeating the value', () => {
    expect(read(` ${DSN} `)).toEqual({ value: DSN, problems: [] });
    expect(read('https://abc:s3cr3t@host.example/1').problems).toEqual([
      'SENTRY_DSN is malformed: it contains a secret key; use the public DSN',
    ]);
  });

  it('prints nothing of its own for a DSN Sentry cannot parse', () => {
    const error = jest.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(read('https://abc@host.example/').problems).toHaveLength(1);
      expect(error).not.toHaveBeenCalled();
    } finally {
      error.mockRestore();
    }
  });
});
