// The checks the table of variables is made of, at their edges, and what each refusal says.
import { buildDsn, sentryEnvironment, tracesSampleRate, tunnelPath } from '@lib/config/build-values';
import { cell } from '@lib/config/reference';
import { ConfigurationError } from '@lib/config/configuration-error';
import { decimal, dsn, folderList, VARIABLES, wholeNumber } from '@lib/config/variables';

describe('wholeNumber and decimal take both ends of their range', () => {
  it.each([
    ['1', { value: 1 }],
    ['5', { value: 5 }],
    ['0', { problem: 'must be a whole number from 1 to 5' }],
    ['6', { problem: 'must be a whole number from 1 to 5' }],
  ])('wholeNumber(1, 5) reads %p', (raw, parsed) => {
    expect(wholeNumber(1, 5).accepts).toBe('a whole number from 1 to 5');
    expect(wholeNumber(1, 5).parse(raw)).toEqual(parsed);
  });

  it.each([
    ['0.01', { value: 0.01 }],
    ['1', { value: 1 }],
    ['0.009', { problem: 'must be a number from 0.01 to 1' }],
    ['1.001', { problem: 'must be a number from 0.01 to 1' }],
  ])('decimal(0.01, 1) reads %p', (raw, parsed) => {
    expect(decimal(0.01, 1).accepts).toBe('a number from 0.01 to 1');
    expect(decimal(0.01, 1).parse(raw)).toEqual(parsed);
  });
});

describe('the screen languages', () => {
  const { check: one } = VARIABLES.screenDefaultLanguage;
  const { check: list } = VARIABLES.screenLanguages;

  it('refuses a language without words, naming those there are', () => {
    expect(one.parse('xx')).toEqual({
      problem: 'must be one of en, fr, de, es, ar (lib/screens/)',
    });
    expect(list.parse('en, xx,yy')).toEqual({
      problem: 'names "xx", "yy", which has no words in lib/screens/ (there are en, fr, de, es, ar)',
    });
  });

  it('refuses a language named twice', () => {
    expect(list.parse('fr,en,fr')).toEqual({ problem: 'names a language twice' });
  });
});

describe('a DSN', () => {
  it('may be plain http (a self-hosted Sentry inside the network)', () => {
    expect(dsn.parse('http://key@sentry.internal/3')).toEqual({ value: 'http://key@sentry.internal/3' });
  });

  it("is parsed by Sentry's own parser without leaving console.error silenced", () => {
    const before = console.error;
    expect(dsn.parse('https://key@host.example/')).toEqual({
      problem: 'is malformed: Sentry cannot parse it (expected https://KEY@host/PROJECT_ID)',
    });
    expect(console.error).toBe(before);
  });
});

describe('folderList', () => {
  it('skips empty entries', () => {
    expect(folderList.parse(' public ,, static,')).toEqual({ value: ['public', 'static'] });
  });

  it('refuses a list of separators only', () => {
    expect(folderList.parse(' , ')).toEqual({ problem: 'names no folder' });
  });
});

describe("the build's values, as the bundles read them", () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });

  it('are the APP_* variables the build inlined', () => {
    process.env.APP_SENTRY_DSN = 'https://key@host.example/1';
    process.env.APP_SENTRY_TUNNEL_PATH = '/t7q2x';
    process.env.APP_SENTRY_TRACES_SAMPLE_RATE = '0.25';
    expect([buildDsn(), tunnelPath(), tracesSampleRate()]).toEqual([
      'https://key@host.example/1',
      '/t7q2x',
      0.25,
    ]);
  });

  it('name the environment, production unless the build said otherwise', () => {
    delete process.env.APP_SENTRY_ENVIRONMENT;
    expect(sentryEnvironment()).toBe('production');
    process.env.APP_SENTRY_ENVIRONMENT = 'staging';
    expect(sentryEnvironment()).toBe('staging');
  });

  it('are none without a DSN', () => {
    for (const name of ['APP_SENTRY_DSN', 'APP_SENTRY_TUNNEL_PATH', 'APP_SENTRY_TRACES_SAMPLE_RATE'])
      delete process.env[name];
    expect([buildDsn(), tunnelPath(), tracesSampleRate()]).toEqual([null, null, 0]);
  });
});

it('a ConfigurationError says what it is', () => {
  expect(String(new ConfigurationError('PORT is bad'))).toBe('ConfigurationError: PORT is bad');
});

it('a cell of the configuration reference keeps a | inside it', () => {
  expect(cell('on | off')).toBe('on \\| off');
});
