import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildTimeEnv } from '@lib/config/build-time';

const DSN = 'https://abc123@o1.ingest.example.io/42';
let root: string;

beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'build-time-'));
  writeFileSync(path.join(root, 'package.json'), JSON.stringify({ version: '4.5.6' }));
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

function commitIn(dir: string): string {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], {
      cwd: dir,
      encoding: 'utf8',
    }).trim();
  git('init', '-q');
  git('add', 'package.json');
  git('commit', '-q', '-m', 'x');
  return git('rev-parse', 'HEAD');
}

describe('buildTimeEnv: what every bundle gets', () => {
  it('inlines plain strings, empty where a value is unset', () => {
    expect(buildTimeEnv({}, { dev: false, root })).toEqual({
      APP_VERSION: '4.5.6',
      APP_RELEASE: '4.5.6',
      APP_SENTRY_DSN: '',
      APP_SENTRY_ENVIRONMENT: 'production',
      APP_SENTRY_TUNNEL_PATH: '',
      APP_SENTRY_TRACES_SAMPLE_RATE: '0',
      APP_SERVICE_NAME: 'This service',
      APP_HOME_HREF: '',
      APP_CONTACT_HREF: '',
      APP_CONTACT_LABEL: '',
      APP_SERVICE_WORKER: '1',
      APP_SCREEN_LANGUAGES: 'en,fr,de,es,ar',
      APP_SCREEN_DEFAULT_LANGUAGE: 'en',
    });
  });

  it('offers the languages asked for, refusing one without words and a default not among them', () => {
    const built = buildTimeEnv(
      { SCREEN_LANGUAGES: 'de, fr', SCREEN_DEFAULT_LANGUAGE: 'fr' },
      { dev: false, root },
    );
    expect(built).toMatchObject({ APP_SCREEN_LANGUAGES: 'de,fr', APP_SCREEN_DEFAULT_LANGUAGE: 'fr' });
    expect(() => buildTimeEnv({ SCREEN_LANGUAGES: 'en,xx' }, { dev: false, root })).toThrow(
      'SCREEN_LANGUAGES names "xx", which has no words in lib/screens/',
    );
    expect(() => buildTimeEnv({ SCREEN_LANGUAGES: 'fr,de' }, { dev: false, root })).toThrow(
      'SCREEN_DEFAULT_LANGUAGE (en) must be one of SCREEN_LANGUAGES (fr,de)',
    );
  });

  it('registers the service worker unless SERVICE_WORKER=off, and never under npm run dev', () => {
    expect(buildTimeEnv({ SERVICE_WORKER: 'on' }, { dev: false, root }).APP_SERVICE_WORKER).toBe('1');
    expect(buildTimeEnv({ SERVICE_WORKER: 'off' }, { dev: false, root }).APP_SERVICE_WORKER).toBe('');
    expect(buildTimeEnv({ SERVICE_WORKER: 'on' }, { dev: true, root }).APP_SERVICE_WORKER).toBe('');
    expect(() => buildTimeEnv({ SERVICE_WORKER: 'yes' }, { dev: true, root })).toThrow(
      /^Invalid build configuration: SERVICE_WORKER /,
    );
  });

  it('carries the reporting settings and the screen wording', () => {
    const env = buildTimeEnv(
      { SENTRY_DSN: DSN, SENTRY_RELEASE: 'v9', NEXT_PUBLIC_SERVICE_NAME: ' Orders ' },
      { dev: false, root },
    );
    expect(env).toEqual(
      expect.objectContaining({
        APP_RELEASE: 'v9',
        APP_SENTRY_DSN: DSN,
        APP_SENTRY_TUNNEL_PATH: '/a6qqfl',
        APP_SENTRY_TRACES_SAMPLE_RATE: '0',
        APP_SERVICE_NAME: 'Orders',
      }),
    );
  });

  it('carries the traces sample rate only with a DSN', () => {
    expect(
      buildTimeEnv({ SENTRY_DSN: DSN, SENTRY_TRACES_SAMPLE_RATE: '0.25' }, { dev: false, root }),
    ).toEqual(expect.objectContaining({ APP_SENTRY_TRACES_SAMPLE_RATE: '0.25' }));
    // Without a DSN nothing could send a transaction: no tracing code is built.
    expect(buildTimeEnv({ SENTRY_TRACES_SAMPLE_RATE: '1' }, { dev: false, root })).toEqual(
      expect.objectContaining({ APP_SENTRY_TRACES_SAMPLE_RATE: '0' }),
    );
    expect(() =>
      buildTimeEnv({ SENTRY_DSN: DSN, SENTRY_TRACES_SAMPLE_RATE: '2' }, { dev: false, root }),
    ).toThrow('SENTRY_TRACES_SAMPLE_RATE');
  });

  it('gives the contact label only with a contact link', () => {
    const label = { NEXT_PUBLIC_CONTACT_LABEL: 'Write to us' };
    expect(buildTimeEnv(label, { dev: false, root }).APP_CONTACT_LABEL).toBe('');
    expect(
      buildTimeEnv({ ...label, NEXT_PUBLIC_CONTACT_HREF: 'mailto:help@example.com' }, { dev: false, root }),
    ).toMatchObject({ APP_CONTACT_HREF: 'mailto:help@example.com', APP_CONTACT_LABEL: 'Write to us' });
  });

  it('names every bad build value in one line', () => {
    expect(() =>
      buildTimeEnv({ SCREEN_LANGUAGES: 'en,en', SERVICE_WORKER: 'maybe' }, { dev: false, root }),
    ).toThrow(
      new Error(
        'Invalid build configuration: SERVICE_WORKER must be on or off (got "maybe"); ' +
          'SCREEN_LANGUAGES names a language twice (got "en,en").',
      ),
    );
  });

  describe('the release', () => {
    it('is SENTRY_RELEASE when set, even in a git checkout', () => {
      commitIn(root);
      expect(buildTimeEnv({ SENTRY_RELEASE: ' v9 ' }, { dev: false, root }).APP_RELEASE).toBe('v9');
    });

    it('is the git commit in a checkout without SENTRY_RELEASE', () => {
      const commit = commitIn(root);
      expect(commit).toMatch(/^[0-9a-f]{40}$/);
      expect(buildTimeEnv({}, { dev: false, root }).APP_RELEASE).toBe(commit);
    });

    it('is the package version outside a checkout (a tarball, a container build)', () => {
      expect(buildTimeEnv({}, { dev: false, root }).APP_RELEASE).toBe('4.5.6');
    });
  });

  it('stops with one line naming a bad reporting value', () => {
    expect(() => buildTimeEnv({ SENTRY_TUNNEL_PATH: '/api', SENTRY_DSN: DSN }, { dev: false, root })).toThrow(
      /^Invalid error-reporting configuration: SENTRY_TUNNEL_PATH must be one path segment/,
    );
  });
});
