/** @jest-environment node */
import { readServerConfig } from '../../../lib/config/server';

describe('readServerConfig', () => {
  it('has defaults for a plain machine', () => {
    expect(readServerConfig({})).toEqual({
      port: 3000,
      host: '0.0.0.0',
      drainMs: 0,
      shutdownTimeoutMs: 10_000,
      keepAliveTimeoutMs: 65_000,
    });
  });

  it('drains for 5 s by default on Kubernetes', () => {
    expect(readServerConfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }).drainMs).toBe(5000);
  });

  it('reads PORT, HOST and the shutdown settings', () => {
    expect(
      readServerConfig({
        PORT: '8080',
        HOST: '127.0.0.1',
        SHUTDOWN_DRAIN_MS: '250',
        SHUTDOWN_TIMEOUT_MS: '3000',
      }),
    ).toEqual(
      expect.objectContaining({ port: 8080, host: '127.0.0.1', drainMs: 250, shutdownTimeoutMs: 3000 }),
    );
  });

  it('names every bad variable in one error', () => {
    expect(() => readServerConfig({ PORT: 'eighty', SHUTDOWN_DRAIN_MS: '-1' })).toThrow(
      'Invalid server configuration: PORT must be a whole number from 0 to 65535 (got "eighty"); SHUTDOWN_DRAIN_MS must be a whole number from 0 to 600000 (got "-1").',
    );
  });
});
