/** @jest-environment node */
import { getTunnelPath } from '@sentry/core';
import { inlinedReportingEnv, readReportingConfig } from '../../../lib/config/reporting';
import { serverDsn } from '../../../lib/server/build-settings';

const DSN = 'https://abc123@o1.ingest.example.io/42';

describe('readReportingConfig', () => {
  it('turns reporting off without SENTRY_DSN, the default on a fresh machine', () => {
    const config = readReportingConfig({ SENTRY_RELEASE: 'r1' }, { dev: false });
    expect(config).toEqual({ dsn: null, environment: 'production', release: 'r1', tunnelPath: null });
  });

  it('defaults the environment to production for builds and development under next dev', () => {
    expect(readReportingConfig({ SENTRY_DSN: DSN }, { dev: false }).environment).toBe('production');
    expect(readReportingConfig({ SENTRY_DSN: DSN }, { dev: true }).environment).toBe('development');
    expect(
      readReportingConfig({ SENTRY_DSN: DSN, SENTRY_ENVIRONMENT: 'staging' }, { dev: false }).environment,
    ).toBe('staging');
  });

  it('takes SENTRY_RELEASE first, else the git commit, else the package version', () => {
    expect(readReportingConfig({ SENTRY_RELEASE: 'v9' }, { dev: false }).release).toBe('v9');
    const fallback = readReportingConfig({}, { dev: false }).release;
    // In a git checkout the commit; in a tarball or image the package version.
    expect(fallback).toMatch(/^([0-9a-f]{40}|\d+\.\d+\.\d+)$/);
  });

  it("defaults the tunnel path to Sentry's hash of the DSN, which filter lists cannot match", () => {
    const config = readReportingConfig({ SENTRY_DSN: DSN }, { dev: false });
    expect(config.tunnelPath).toBe(getTunnelPath(DSN));
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

  it('inlines plain strings into the bundles', () => {
    expect(inlinedReportingEnv(readReportingConfig({ SENTRY_RELEASE: 'r' }, { dev: false }))).toEqual({
      APP_SENTRY_DSN: '',
      APP_SENTRY_ENVIRONMENT: 'production',
      APP_SENTRY_TUNNEL_PATH: '',
      APP_RELEASE: 'r',
    });
  });
});

describe('serverDsn (at start)', () => {
  it('uses the DSN given at start when it matches the build', () => {
    expect(serverDsn({ SENTRY_DSN: DSN }, { APP_SENTRY_DSN: DSN })).toBe(DSN);
  });

  it("falls back to the build's DSN when none is given at start", () => {
    expect(serverDsn({}, { APP_SENTRY_DSN: DSN })).toBe(DSN);
    expect(serverDsn({}, { APP_SENTRY_DSN: '' })).toBeNull();
  });

  it('stops the start when the DSN differs from the build, since the tunnel would refuse every envelope', () => {
    expect(() => serverDsn({ SENTRY_DSN: 'https://other@host.example/1' }, { APP_SENTRY_DSN: DSN })).toThrow(
      /SENTRY_DSN differs from the one this build was made with/,
    );
  });

  it('stops the start on a malformed DSN', () => {
    expect(() => serverDsn({ SENTRY_DSN: 'https://host.example/1' }, {})).toThrow(/SENTRY_DSN is malformed/);
  });
});
