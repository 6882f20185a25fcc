// Shared by the unit tests of the table of variables and of the server's settings.

/**
 * A value each variable must refuse, written out by hand: a whole number gets a fraction inside its
 * range, so the check of wholeness is tested on its own. Variables that accept any text are
 * listed with null. A new row fails the test below until it is added here.
 */
export const REFUSED: Record<string, string[] | null> = {
  SENTRY_DSN: [
    'not a url',
    'ftp://key@host/1',
    'https://host/1',
    'https://key:secret@host/1',
    'https://key@host/',
  ],
  SENTRY_ENVIRONMENT: null,
  SENTRY_RELEASE: null,
  SENTRY_TUNNEL_PATH: ['tunnel', '/a', '/api', '/_next', '/with/slash', `/${'x'.repeat(70)}`],
  SENTRY_TRACES_SAMPLE_RATE: ['-0.1', '1.5', '10%', 'all', 'NaN', 'Infinity'],
  SENTRY_AUTH_TOKEN: null,
  SENTRY_ORG: null,
  SENTRY_PROJECT: null,
  SENTRY_URL: null,
  NEXT_PUBLIC_SERVICE_NAME: null,
  NEXT_PUBLIC_HOME_HREF: null,
  NEXT_PUBLIC_CONTACT_HREF: null,
  NEXT_PUBLIC_CONTACT_LABEL: null,
  NEXT_DIST_DIR: null,
  NEXT_OUTPUT: ['export', 'Standalone'],
  PORT: ['-1', '65536', '3000.5', 'http', '0x'],
  HOST: null,
  SHUTDOWN_DRAIN_MS: ['-5', '600001', '250.5', 'soon'],
  SHUTDOWN_TIMEOUT_MS: ['-1', '600001', '1000.5', 'later'],
  KEEP_ALIVE_TIMEOUT_MS: ['999', '600001', '5000.5', 'long'],
  HEADERS_TIMEOUT_MS: ['999', '120001', '5000.5', 'x'],
  REQUEST_TIMEOUT_MS: ['999', '600001', '20000.5', 'x'],
  MAX_CONNECTIONS: ['0', '1000001', '10.5', 'many', '-3'],
  CONNECTIONS_CHECK_INTERVAL_MS: ['99', '30001', '250.5', 'x'],
  HEALTH_EVENT_LOOP_DELAY_MS_WARN: ['0', '600001', '50.5', 'x'],
  HEALTH_EVENT_LOOP_DELAY_MS_FAIL: ['0', '600001', '400.5', 'soon'],
  HEALTH_HEAP_USED_RATIO_WARN: ['0', '1.01', '2', 'half'],
  HEALTH_HEAP_USED_RATIO_FAIL: ['0.001', '1.5', 'lots'],
  MANAGEMENT_PORT: ['-1', '65536', '9464.5', 'mgmt'],
  LOG_LEVEL: ['verbose', 'INFO', 'warning', '30'],
  LIVENESS_WEDGE_MS: ['999', '60001', '5000.5', 'ten'],
  HEALTH_CHECK_REUSE_MS: ['-1', '60001', '10.5', 'x'],
};
